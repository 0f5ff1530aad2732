// Every failure the SDK reports is a CanopyError subclass, so callers can branch on
// `instanceof` (or on `name`) and never have to parse message text. An error the server
// reported (an HTTP `{"error":{...}}` body or a WebSocket `error` message) is always an
// ApiError carrying the contract's code.

import type { ErrorCode } from './wire/types.js';

/** The base class of every error this SDK throws or rejects with. */
export class CanopyError extends Error {
  override name = 'CanopyError';
}

/** The server refused a request with one of the contract's error codes. */
export class ApiError extends CanopyError {
  override name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Index (from 0) of the first bad op of an edit batch, when an op is at fault. */
    readonly op?: number,
    /** The HTTP status, when the error came over HTTP (or a refused WebSocket upgrade). */
    readonly status?: number,
    /** A `503`'s `Retry-After`, in ms, when the server sent one (and CORS lets it be read). */
    readonly retryAfterMs?: number,
  ) {
    super(`${code}: ${message}${op === undefined ? '' : ` (op ${op})`}`);
  }
}

/** An HTTP answer that is neither a success nor a contract error body (a proxy's page). */
export class UnexpectedStatusError extends CanopyError {
  override name = 'UnexpectedStatusError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`unexpected HTTP status ${status}: ${body.slice(0, 200)}`);
  }
}

/** The request could not reach the server, or its answer could not be read. */
export class TransportError extends CanopyError {
  override name = 'TransportError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Bytes or text from the server that are not a valid message of the contract. */
export class DecodeError extends CanopyError {
  override name = 'DecodeError';
  constructor(
    message: string,
    /** Byte offset of the problem in a binary frame, when known. */
    readonly offset?: number,
    /**
     * For compact blocks, the kind of problem as the layout names it: `truncated`,
     * `bad_flags`, `overlong_leb128`, `out_of_range`, `id_order` or `trailing_bytes`.
     */
    readonly kind?: string,
  ) {
    super(offset === undefined ? message : `${message} (at byte ${offset})`);
  }
}

/** An answer of the wrong shape for its request (a ray answer to a region query, say). */
export class UnexpectedReplyError extends CanopyError {
  override name = 'UnexpectedReplyError';
}

/** The caller passed something the contract forbids, caught before it was sent. */
export class InvalidArgumentError extends CanopyError {
  override name = 'InvalidArgumentError';
}

/**
 * The connection dropped before the answer arrived. For an edit batch the outcome is
 * unknown: the server may or may not have applied it.
 */
export class DisconnectedError extends CanopyError {
  override name = 'DisconnectedError';
  constructor(message = 'the connection dropped before the answer arrived') {
    super(message);
  }
}

/** No answer within the request timeout; the request may still take effect. */
export class TimeoutError extends CanopyError {
  override name = 'TimeoutError';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** The connection has stopped for good and takes no more requests. */
export class StoppedError extends CanopyError {
  override name = 'StoppedError';
  constructor(readonly reason: string) {
    super(`the connection has stopped: ${reason}`);
  }
}

/** The server speaks another major version of the protocol than this SDK. */
export class VersionMismatchError extends CanopyError {
  override name = 'VersionMismatchError';
  constructor(
    readonly ours: string,
    readonly theirs: string,
  ) {
    super(
      `protocol version mismatch: this client speaks ${ours}, the server selected ${theirs}`,
    );
  }
}
