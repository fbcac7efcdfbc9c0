/**
 * GitHub's limits on what a pull request carries, and the last-resort cut that keeps any text
 * inside them (pure). GitHub answers `422 Validation Failed` to a pull request whose title is over
 * 256 characters or whose body is over 65,536 ("body is too long (maximum is 65536 characters)"),
 * and to a comment over 65,536. Lengths here are UTF-16 code units (JavaScript's `length`), never
 * fewer than the characters GitHub counts, so a text that fits here fits there.
 */

/** GitHub's longest pull-request title, in characters. */
export const GITHUB_TITLE_MAX = 256;

/** GitHub's longest pull-request body or comment, in characters. */
export const GITHUB_BODY_MAX = 65_536;

/** A hidden gpuops marker at the very end of a text (`<!-- gpuops:desired-hash=… -->`, a comment's). */
const TRAILING_MARKER = /\n*(<!--\s*gpuops:[^>]*?-->)\s*$/;

/** `s` without a lone high surrogate at its end (a cut never splits a character in two). */
function wholeCharacters(s: string): string {
  const last = s.charCodeAt(s.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? s.slice(0, -1) : s;
}

/** `title` itself when it fits `max`, else its first `max - 1` characters and `…`. */
export function fitTitle(title: string, max = GITHUB_TITLE_MAX): string {
  return title.length <= max ? title : `${wholeCharacters(title.slice(0, max - 1))}…`;
}

/**
 * `text` itself when it fits `max` characters; else its first whole lines, then a line
 * `… cut to fit 65,536 characters; <where>`, then the text's trailing hidden gpuops marker
 * unchanged (so a cut body keeps its desired hash and a cut comment its marker).
 */
export function fitText(text: string, where: string, max = GITHUB_BODY_MAX): string {
  if (text.length <= max) return text;
  const m = TRAILING_MARKER.exec(text);
  const tail = m ? `\n\n${m[1]}\n` : '\n';
  const body = m ? text.slice(0, m.index) : text;
  const note = `\n\n… cut to fit ${String(max).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} characters; ${where}`;
  const room = Math.max(0, max - tail.length - note.length);
  let head = body.slice(0, room);
  const nl = head.lastIndexOf('\n');
  head = nl > 0 ? head.slice(0, nl) : wholeCharacters(head);
  return `${head.trimEnd()}${note}${tail}`.slice(0, max);
}
