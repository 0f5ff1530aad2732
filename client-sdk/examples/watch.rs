//! Prints a room's live changes: connects over WebSocket, subscribes to the whole room
//! (or a region, or, on a v1.2 server, the sphere following a node), and prints every
//! event as it arrives, including disconnects and resynchronisations.
//!
//! ```text
//! cargo run -p canopy-client --example watch -- http://127.0.0.1:7878 demo --json
//! cargo run -p canopy-client --example watch -- http://127.0.0.1:7878 demo --region=-5,-5,-5,5,5,5
//! cargo run -p canopy-client --example watch -- http://127.0.0.1:7878 demo --follow 3 --radius 20 --send-hz 10
//! ```

use canopy_client::{Client, ConnectOptions, Event, Scope};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Print a Canopy room's live changes")]
struct Args {
    /// The server's base URL.
    url: String,
    /// The room to watch.
    room: String,
    /// Use JSON frames instead of bincode.
    #[arg(long)]
    json: bool,
    /// Watch only a region: minx,miny,minz,maxx,maxy,maxz.
    #[arg(long, value_parser = parse_region, allow_hyphen_values = true)]
    region: Option<Scope>,
    /// (v1.2) Watch the sphere of `--radius` around this node, following it.
    #[arg(long, requires = "radius", conflicts_with = "region")]
    follow: Option<u32>,
    /// The radius of `--follow`, world units.
    #[arg(long, requires = "follow")]
    radius: Option<f32>,
    /// (v1.2) At most this many frames a second.
    #[arg(long)]
    send_hz: Option<u32>,
    /// Layer mask of the subscription.
    #[arg(long, default_value_t = u32::MAX)]
    mask: u32,
    /// Bearer token, when the server requires one.
    #[arg(long, env = "CANOPY_TOKEN")]
    token: Option<String>,
    /// Print only one line per delta frame instead of every node change.
    #[arg(long)]
    summary: bool,
}

/// Parses `minx,miny,minz,maxx,maxy,maxz` into a region scope.
fn parse_region(text: &str) -> Result<Scope, String> {
    let v: Vec<f32> = text
        .split(',')
        .map(|p| p.trim().parse::<f32>().map_err(|e| format!("{p:?}: {e}")))
        .collect::<Result<_, _>>()?;
    let [a, b, c, d, e, f] = v[..] else {
        return Err(format!("expected 6 numbers, got {}", v.len()));
    };
    let scope = Scope::region([a, b, c], [d, e, f]);
    scope.validate().map_err(|e| e.to_string())?;
    Ok(scope)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut client = Client::new(&args.url)?;
    if let Some(token) = args.token {
        client = client.with_token(token);
    }
    let options = if args.json {
        ConnectOptions::default().json()
    } else {
        ConnectOptions::default()
    };
    let mut scope = match (args.follow, args.radius) {
        (Some(node), Some(radius)) => Scope::follow(node, radius),
        _ => args.region.unwrap_or_default(),
    }
    .with_mask(args.mask);
    scope.send_hz = args.send_hz;
    scope.validate()?;

    let conn = client.connect(&args.room, options).await?;
    let mut events = conn.events();
    let tick = conn.subscribe(scope).await?;
    println!(
        "watching {} ({:?}) from tick {tick}: {} nodes in scope",
        args.room,
        conn.format(),
        conn.mirror().len()
    );
    let mut changes = 0usize;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            event = events.next() => {
                let Some(event) = event else { break };
                if event.is_node_change() {
                    changes += 1;
                    if args.summary {
                        continue;
                    }
                }
                match event {
                    Event::Entered(n) => println!("+ {} parent={:?} t={:?} mask={:#x}", n.id, n.parent, n.world.t, n.mask),
                    Event::Changed(n) => println!("~ {} parent={:?} extent={:?} mask={:#x}", n.id, n.parent, n.extent, n.mask),
                    Event::Updated { id, world } => println!("  {id} t={:?} r={:?} s={}", world.t, world.r, world.s),
                    Event::Left(id) => println!("- {id}"),
                    Event::Tick { tick, .. } => {
                        if args.summary {
                            println!("tick {tick}: {changes} changes, {} in scope", conn.mirror().len());
                        }
                        changes = 0;
                    }
                    Event::Snapshot { tick, len, .. } => println!("snapshot at tick {tick}: {len} nodes"),
                    Event::Resynced { tick, len, .. } => println!("resynchronised at tick {tick}: {len} nodes"),
                    Event::Disconnected { error } => println!("disconnected ({error}); reconnecting"),
                    Event::Reconnected => println!("reconnected"),
                    Event::Stopped(reason) => println!("stopped: {reason}"),
                    Event::Lagged { missed_frames } => println!("fell behind by {missed_frames} frames; the mirror is still complete"),
                    other => println!("{other:?}"),
                }
            }
        }
    }
    conn.close().await;
    Ok(())
}
