/**
 * The text of a `kubectl get … -o json` (or `-o yaml`) dump parsed to a value, its syntax error
 * reduced to one located line (the parsers' own messages carry the source, newlines and a code
 * frame, unreadable once escaped onto one stderr line).
 */
import { parse, YAMLError } from 'yaml';

/**
 * `text` parsed as JSON, else as YAML.
 * @param file the dump's path, named first in every error
 * @throws Error `FILE:LINE:COL: not valid JSON: MESSAGE` when the text starts with `{` or `[`
 *   (line and column 1-based; `FILE: not valid JSON: …` in the rare case V8 gives no place),
 *   else `FILE:LINE:COL: not valid YAML: MESSAGE` (the message's first line), with a hint when a
 *   later line starts the JSON (a kubectl warning written into the file); never a newline
 */
export function parseDumpText(file: string, text: string): unknown {
  let jsonError: Error;
  try {
    return JSON.parse(text);
  } catch (err) {
    jsonError = err as Error;
  }
  if (/^\s*[[{]/.test(text)) {
    const { message, pos } = jsonPlace(text, jsonError.message);
    throw new Error(`${file}${pos === null ? '' : `:${lineCol(text, pos)}`}: not valid JSON: ${message}`);
  }
  try {
    return parse(text);
  } catch (err) {
    const first = ((err as Error).message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    const at = err instanceof YAMLError && err.linePos ? `:${err.linePos[0].line}:${err.linePos[0].col}` : '';
    const jsonLine = text.split('\n').findIndex((l) => /^[[{]/.test(l));
    const hint =
      jsonLine > 0
        ? ` (the JSON starts on line ${jsonLine + 1}: remove the lines above it; kubectl writes warnings to stderr, redirect only stdout)`
        : '';
    throw new Error(`${file}${at}: not valid YAML: ${first}${hint}`);
  }
}

/** V8's context shown around an unexpected token: 10 characters each side. */
const CONTEXT = 10;

/**
 * The offset (UTF-16 units) a V8 `JSON.parse` message points at, and the message without the
 * place or the quoted source: `… in JSON at position N` (Node 22 adds `(line L column C)`);
 * `Unexpected end of JSON input` points after the last non-blank character; `Unexpected token
 * 'X', "…" is not valid JSON` is placed from the quoted context (or, in a short text, the token)
 * when it occurs once.
 */
function jsonPlace(text: string, raw: string): { message: string; pos: number | null } {
  const at = /^([\s\S]*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(raw);
  if (at) return { message: at[1] ?? raw, pos: Number(at[2]) };
  if (raw === 'Unexpected end of JSON input') return { message: raw, pos: text.trimEnd().length };
  const token = /^(Unexpected token '([\s\S]+?)'), (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(
    raw,
  );
  if (!token) return { message: raw.split('\n')[0] ?? raw, pos: null };
  const [, message = raw, char = '', before, shown = '', after] = token;
  if (after && !before) return { message, pos: shown.length - CONTEXT };
  if (before && !after) return { message, pos: text.length - shown.length + CONTEXT };
  // The context around the token, or (a text of 21 characters or fewer) the token itself.
  const [find, offset] = before ? [shown, CONTEXT] : [char, 0];
  const i = text.indexOf(find);
  return { message, pos: i !== -1 && text.indexOf(find, i + 1) === -1 ? i + offset : null };
}

/** `LINE:COL` (1-based) of offset `pos` in `text`. */
function lineCol(text: string, pos: number): string {
  const upTo = text.slice(0, pos);
  const line = upTo.split('\n').length;
  return `${line}:${pos - (upTo.lastIndexOf('\n') + 1) + 1}`;
}
