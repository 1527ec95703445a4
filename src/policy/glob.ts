/**
 * A name pattern of policy rules: `*` matches any run of characters (none
 * included), `?` exactly one, anything else itself. Matching takes at most
 * O(name length × glob length) steps, whatever the glob: a regular expression
 * such as `^.*a.*a.*a.*b$` backtracks exponentially on a name that almost
 * matches, and would block the event loop.
 */
export class Glob {
  readonly source: string;
  /** The literal text before the first wildcard (the whole glob when it has none). */
  readonly prefix: string;
  /** The literal text after the last wildcard (`''` when it ends with one or has none). */
  readonly suffix: string;
  readonly isLiteral: boolean;

  constructor(source: string) {
    this.source = source;
    const first = source.search(/[*?]/);
    this.isLiteral = first === -1;
    this.prefix = this.isLiteral ? source : source.slice(0, first);
    this.suffix = this.isLiteral ? '' : source.slice(Math.max(source.lastIndexOf('*'), source.lastIndexOf('?')) + 1);
  }

  test(name: string): boolean {
    if (this.isLiteral) return name === this.source;
    if (
      !name.startsWith(this.prefix) ||
      !name.endsWith(this.suffix) ||
      name.length < this.prefix.length + this.suffix.length
    )
      return false;
    const glob = this.source;
    let g = this.prefix.length;
    let n = this.prefix.length;
    // Where the last `*` was seen, and where in the name it is tried next: only the last star ever needs to
    // take more characters, because every earlier one already matched as little as possible.
    let star = -1;
    let resume = 0;
    while (n < name.length) {
      const char = glob[g];
      if (char === '*') {
        star = g++;
        resume = n;
      } else if (g < glob.length && (char === '?' || char === name[n])) {
        g++;
        n++;
      } else if (star !== -1) {
        g = star + 1;
        n = ++resume;
      } else return false;
    }
    while (glob[g] === '*') g++;
    return g === glob.length;
  }
}
