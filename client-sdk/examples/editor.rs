//! Builds a small hierarchy in a room and animates it: a sun, planets orbiting it and
//! moons orbiting the planets, all moved with `set_local` batches once a frame. Run
//! `watch` on the same room to see the changes.
//!
//! ```text
//! cargo run -p canopy-client --example editor -- http://127.0.0.1:7878 orrery --seconds 30
//! ```

use std::time::Duration;

use canopy_client::{Client, ConnectOptions, Op, Scope, Transform};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Build and animate a small hierarchy in a Canopy room")]
struct Args {
    /// The server's base URL.
    url: String,
    /// The room to edit; created when missing.
    room: String,
    /// Use JSON frames instead of bincode.
    #[arg(long)]
    json: bool,
    /// Tick rate of the room if this creates it.
    #[arg(long, default_value_t = 30)]
    tick_hz: u32,
    /// Planets around the sun.
    #[arg(long, default_value_t = 6)]
    planets: u32,
    /// Moons around each planet.
    #[arg(long, default_value_t = 3)]
    moons: u32,
    /// Animation frames per second.
    #[arg(long, default_value_t = 30)]
    fps: u32,
    /// How long to animate; 0 runs until Ctrl-C.
    #[arg(long, default_value_t = 0)]
    seconds: u64,
    /// Bearer token, when the server requires one.
    #[arg(long, env = "CANOPY_TOKEN")]
    token: Option<String>,
}

/// A rotation of `angle` radians about the y axis, as an (x, y, z, w) quaternion.
fn yaw(angle: f32) -> [f32; 4] {
    let half = angle * 0.5;
    [0.0, half.sin(), 0.0, half.cos()]
}

fn add(parent: Option<u32>, t: [f32; 3], scale: f32, extent: f32) -> Op {
    Op::Add {
        id: None,
        parent,
        local: Transform {
            t,
            r: [0.0, 0.0, 0.0, 1.0],
            s: scale,
        },
        extent: [extent; 3],
        mask: u32::MAX,
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut client = Client::new(&args.url)?;
    if let Some(token) = args.token {
        client = client.with_token(token);
    }
    if client.ensure_room(&args.room, Some(args.tick_hz)).await? {
        println!("created room {}", args.room);
    }
    let options = if args.json {
        ConnectOptions::default().json()
    } else {
        ConnectOptions::default()
    };
    let conn = client.connect(&args.room, options).await?;

    // The sun first, then the planets under it, then the moons under each planet: each
    // batch needs the ids the previous one was given.
    let sun = conn.edit(vec![add(None, [0.0; 3], 1.0, 2.0)]).await?.ids[0];
    let planet_ops = (0..args.planets)
        .map(|i| add(Some(sun), [6.0 + 4.0 * i as f32, 0.0, 0.0], 0.5, 1.0))
        .collect();
    let planets = conn.edit(planet_ops).await?.ids;
    let moon_ops = planets
        .iter()
        .flat_map(|&p| {
            (0..args.moons).map(move |j| add(Some(p), [2.0 + j as f32, 0.5, 0.0], 0.4, 0.5))
        })
        .collect();
    let moons = conn.edit(moon_ops).await?.ids;
    println!(
        "built sun {sun}, {} planets and {} moons in {}",
        planets.len(),
        moons.len(),
        args.room
    );

    // Watch the room as well, to show the mirror following the animation.
    conn.subscribe(Scope::room()).await?;
    let frame = Duration::from_secs_f64(1.0 / f64::from(args.fps.max(1)));
    let mut ticker = tokio::time::interval(frame);
    let started = tokio::time::Instant::now();
    let mut frames = 0u64;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = ticker.tick() => {}
        }
        let time = started.elapsed().as_secs_f32();
        if args.seconds > 0 && time >= args.seconds as f32 {
            break;
        }
        // Every body spins about its own axis; planets' spin carries their moons round.
        let mut ops = vec![Op::SetLocal {
            node: sun,
            t: None,
            r: Some(yaw(time * 0.2)),
            s: None,
        }];
        for (i, &p) in planets.iter().enumerate() {
            ops.push(Op::SetLocal {
                node: p,
                t: None,
                r: Some(yaw(time * (1.0 + i as f32 * 0.3))),
                s: None,
            });
        }
        for (j, &m) in moons.iter().enumerate() {
            let bob = (time * 2.0 + j as f32).sin() * 0.5;
            ops.push(Op::SetLocal {
                node: m,
                t: Some([2.0 + (j as u32 % args.moons.max(1)) as f32, bob, 0.0]),
                r: None,
                s: None,
            });
        }
        match conn.edit(ops).await {
            Ok(ack) => {
                frames += 1;
                if frames.is_multiple_of(u64::from(args.fps.max(1))) {
                    let mirror = conn.mirror();
                    let moon = moons
                        .first()
                        .and_then(|&m| mirror.get(m))
                        .map(|n| n.world.t);
                    println!(
                        "tick {}: {} nodes mirrored, first moon at {moon:?}",
                        ack.tick,
                        mirror.len()
                    );
                }
            }
            // A dropped connection reconnects by itself; skip the frame and carry on.
            Err(e) => eprintln!("frame skipped: {e}"),
        }
    }
    println!("animated {frames} frames");
    conn.close().await;
    Ok(())
}
