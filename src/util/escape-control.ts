/**
 * Control characters made visible in text output (pure). A YAML key, a file name or a value
 * from Git can hold any character; printed raw, a newline starts a forged line (a GitHub
 * workflow command such as `::add-mask::` or `::error::` in a CI log, a fake error in a PR
 * comment), an ESC sequence drives the terminal (ECMA-48: colours, cursor moves, window titles,
 * OSC 8 links), and the bidirectional overrides reorder what a reviewer reads (CVE-2021-42574,
 * "Trojan Source").
 *
 * Escaped: C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F; U+009B is an 8-bit CSI), the line and
 * paragraph separators (U+2028, U+2029) and the bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069). `\n`, `\r` and `\t` are written as such, the rest as `\xHH`
 * or `\uHHHH`, as a JavaScript string literal would show them.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return (
    NAMED[c] ??
    (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
}

/**
 * Escapes every control character of one line of output (see the module doc), newlines included,
 * so the text stays one line.
 * @example escapeControl('a\nb\x1b[31m') === 'a\\nb\\x1b[31m'
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, visible);
}

/**
 * Escapes the control characters of multi-line text (a pull request body) but keeps its line
 * feeds and tabs; a carriage return is escaped (it would overwrite the line on a terminal).
 */
export function escapeControlKeepLines(text: string): string {
  return text.replace(CONTROL_BUT_LINES, visible);
}
