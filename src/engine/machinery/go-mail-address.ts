/**
 * Go's net/mail.ParseAddress, as kube-openapi's strfmt checks a custom resource's `format: email`: one RFC 5322
 * address (`a@b.c`, `Name <a@b.c>`, `"quoted local"@b.c`, `a@[1.2.3.4]`, a group `team: a@b.c;`), with comments.
 * It answers only whether Go accepts the string. Every step consumes input, so it is linear in the string's length.
 */
import { isIP } from 'node:net';

class Refused extends Error {}

/** RFC 5322 visible characters, as Go counts them: printable ASCII and every non-ASCII character. */
function isVchar(c: string): boolean {
  return (c >= '!' && c <= '~') || c.charCodeAt(0) >= 0x80;
}
const SPECIALS = '()<>[]:;@\\,"';
function isAtext(c: string, dot: boolean): boolean {
  if (c === '.') return dot;
  return !SPECIALS.includes(c) && isVchar(c);
}
function isWSP(c: string): boolean {
  return c === ' ' || c === '\t';
}

/**
 * What mime.WordDecoder makes of an atom in a phrase: a plain word, an encoded word (`=?utf-8?q?…?=`; `empty` when it
 * decodes to nothing), or one whose charset Go cannot convert (only utf-8, iso-8859-1 and us-ascii are built in).
 */
function encodedWord(word: string): 'plain' | 'encoded' | 'empty' | 'charset' {
  if (word.length < 8 || !word.startsWith('=?') || !word.endsWith('?=') || word.split('?').length !== 5) return 'plain';
  const [charset, encoding, text] = word.slice(2, -2).split('?') as [string, string, string];
  if (charset === '' || encoding.length !== 1) return 'plain';
  const decodes =
    /^[bB]$/.test(encoding) ? /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)
    : /^[qQ]$/.test(encoding) ? /^(?:=[0-9A-Fa-f]{2}|[\t\r\n -<>-~])*$/.test(text)
    : false;
  if (!decodes) return 'plain';
  if (!['utf-8', 'iso-8859-1', 'us-ascii'].includes(charset.toLowerCase())) return 'charset';
  return text === '' ? 'empty' : 'encoded';
}

class AddressParser {
  constructor(private s: string) {}

  parseSingle(): void {
    const count = this.parseAddress(true);
    if (!this.skipCFWS() || this.s !== '' || count !== 1) throw new Refused();
  }

  /** An address, or with handleGroup a group of them; the number of addresses. */
  private parseAddress(handleGroup: boolean): number {
    this.skipSpace();
    if (this.s === '') throw new Refused();
    if (this.tryAddrSpec()) {
      this.skipSpace();
      if (this.consume('(')) {
        // consumeDisplayNameComment: the comment is the display name, its encoded words decoded.
        const comment = this.consumeComment();
        if (comment === null || comment.split(/[ \t]+/).some((word) => encodedWord(word) === 'charset')) throw new Refused();
      }
      return 1;
    }
    if (!this.s.startsWith('<')) this.consumePhrase();
    this.skipSpace();
    if (handleGroup && this.consume(':')) return this.consumeGroupList();
    if (!this.consume('<') || !this.tryAddrSpec() || !this.consume('>')) throw new Refused();
    return 1;
  }

  private consumeGroupList(): number {
    this.skipSpace();
    if (this.consume(';')) {
      if (!this.skipCFWS()) throw new Refused();
      return 0;
    }
    let count = 0;
    for (;;) {
      this.skipSpace();
      count += this.parseAddress(false);
      if (!this.skipCFWS()) throw new Refused();
      if (this.consume(';')) {
        if (!this.skipCFWS()) throw new Refused();
        return count;
      }
      if (!this.consume(',')) throw new Refused();
    }
  }

  /** consumeAddrSpec, restoring the input when it fails (Go then tries a name-addr). */
  private tryAddrSpec(): boolean {
    const orig = this.s;
    try {
      this.skipSpace();
      if (this.s === '') throw new Refused();
      if (this.s.startsWith('"')) {
        if (this.consumeQuotedString() === '') throw new Refused();
      } else {
        this.consumeAtom(true, false);
      }
      if (!this.consume('@')) throw new Refused();
      this.skipSpace();
      if (this.s === '') throw new Refused();
      if (this.s.startsWith('[')) this.consumeDomainLiteral();
      else this.consumeAtom(true, false);
      return true;
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      this.s = orig;
      return false;
    }
  }

  /**
   * Words (atoms, quoted strings, encoded words) separated by comments. Go's own bookkeeping, kept because it decides
   * edge cases: adjacent encoded words join into one pending word, and comments are skipped only once a word is done.
   */
  private consumePhrase(): void {
    let words = 0;
    let pending = false;
    let failed = false;
    for (;;) {
      if (words > 0 && !this.skipCFWS()) throw new Refused();
      this.skipSpace();
      if (this.s === '') break;
      let kind: ReturnType<typeof encodedWord> = 'plain';
      try {
        if (this.s.startsWith('"')) this.consumeQuotedString();
        else kind = encodedWord(this.consumeAtom(true, true));
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
        failed = true;
      }
      if (failed || kind === 'charset') {
        failed = true;
        break;
      }
      if (kind === 'encoded') pending = true;
      else if (kind === 'plain') {
        words += pending ? 2 : 1;
        pending = false;
      }
    }
    if (pending) words++;
    if (failed && words === 0) throw new Refused();
  }

  private consumeQuotedString(): string {
    let i = 1;
    let value = '';
    let escaped = false;
    for (;;) {
      const c = this.s[i];
      if (c === undefined) throw new Refused();
      if (escaped) {
        if (!isVchar(c) && !isWSP(c)) throw new Refused();
        value += c;
        escaped = false;
      } else if ((isVchar(c) && c !== '\\' && c !== '"') || isWSP(c)) {
        value += c;
      } else if (c === '"') {
        break;
      } else if (c === '\\') {
        escaped = true;
      } else {
        throw new Refused();
      }
      i++;
    }
    this.s = this.s.slice(i + 1);
    return value;
  }

  private consumeAtom(dot: boolean, permissive: boolean): string {
    let i = 0;
    while (i < this.s.length && isAtext(this.s[i]!, dot)) i++;
    if (i === 0) throw new Refused();
    const atom = this.s.slice(0, i);
    this.s = this.s.slice(i);
    if (!permissive && (atom.startsWith('.') || atom.includes('..') || atom.endsWith('.'))) throw new Refused();
    return atom;
  }

  private consumeDomainLiteral(): void {
    this.consume('[');
    const end = this.s.indexOf(']');
    if (end < 0) throw new Refused();
    const dtext = this.s.slice(0, end);
    for (const c of dtext) if (c === '[' || c === '\\' || !isVchar(c)) throw new Refused();
    // net.ParseIP: no IPv6 zone; like Node's, no leading zeros in an IPv4 part.
    if (!isIP(dtext) || dtext.includes('%')) throw new Refused();
    this.s = this.s.slice(end + 1);
  }

  /** After a `(`: the comment up to its matching `)` (a backslash escapes the next byte); null when it never closes. */
  private consumeComment(): string | null {
    let depth = 1;
    let i = 0;
    let comment = '';
    for (; i < this.s.length && depth > 0; i++) {
      if (this.s[i] === '\\' && i + 1 < this.s.length) i++;
      else if (this.s[i] === '(') depth++;
      else if (this.s[i] === ')') depth--;
      if (depth > 0) comment += this.s[i];
    }
    this.s = this.s.slice(i);
    return depth === 0 ? comment : null;
  }

  private skipCFWS(): boolean {
    this.skipSpace();
    while (this.consume('(')) {
      if (this.consumeComment() === null) return false;
      this.skipSpace();
    }
    return true;
  }

  private skipSpace(): void {
    this.s = this.s.replace(/^[ \t]+/, '');
  }

  private consume(c: string): boolean {
    if (!this.s.startsWith(c)) return false;
    this.s = this.s.slice(1);
    return true;
  }
}

/** net/mail.ParseAddress(s) succeeds (and, as strfmt.IsEmail asks, gives an address). */
export function isGoMailAddress(s: string): boolean {
  try {
    new AddressParser(s).parseSingle();
    return true;
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}
