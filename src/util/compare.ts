/**
 * Orders two strings by their UTF-16 code units, as a comparator (`[...].sort(byString)`): the
 * order `Array.prototype.sort` gives without one, independent of the machine's locale (unlike
 * `localeCompare`), so every sort of names, paths and keys is the same on every machine and in
 * every rendered file. Pure.
 */
export const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
