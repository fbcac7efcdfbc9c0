/** Small HTTP helpers of the simulated API server: bodies, JSON answers, `Status` errors. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimApiError } from './types.js';

/** Largest request body accepted (bytes), as the API server's 3 MiB limit. */
const MAX_BODY = 3 * 1024 * 1024;

/** Reads the whole request body as text. @throws SimApiError 400 when it exceeds 3 MiB */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new SimApiError(400, 'BadRequest', 'request entity too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a JSON body. @throws SimApiError 400 BadRequest naming the parse error */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SimApiError(400, 'BadRequest', `invalid JSON body: ${(err as Error).message}`);
  }
}

/** Answers with a JSON body. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** A Kubernetes `Status` failure object. */
export function failureStatus(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

/**
 * Answers with the `Status` for an error (500 InternalError for anything but a SimApiError). The
 * error's own `details` (a 422 patch failure's causes) win over the request's `details` (name, kind).
 */
export function sendError(res: ServerResponse, err: unknown, details?: Record<string, unknown>): void {
  if (err instanceof SimApiError) {
    sendJson(res, err.code, failureStatus(err.code, err.reason, err.message, err.details ?? details));
  } else {
    const message = err instanceof Error ? err.message : String(err);
    sendJson(res, 500, failureStatus(500, 'InternalError', `Internal error occurred: ${message}`));
  }
}
