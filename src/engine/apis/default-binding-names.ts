/**
 * The name kcp's `system:apibindings` initializer gives the APIBinding it creates for a WorkspaceType's default
 * binding: the export name (cut to leave room for the suffix in a 253-character name), a dash, and the first five
 * characters, lower-cased, of sha224("<consumer cluster>|<export path>|<export name>") written in base 62 (Go's
 * big.Int.Text(62) digits: 0-9, a-z, A-Z). The same workspace and export always give the same name, so a restarted
 * initializer finds the binding it made before.
 */
import { createHash } from 'node:crypto';

/** 253 (a DNS-1123 subdomain) minus the dash and the five-character suffix. */
const MAX_EXPORT_PREFIX = 253 - 1 - 5;
const BASE62_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function defaultAPIBindingName(cluster: string, exportPath: string, exportName: string): string {
  const digest = createHash('sha224').update(`${cluster}|${exportPath}|${exportName}`).digest('hex');
  const suffix = base62(BigInt(`0x${digest}`)).slice(0, 5).toLowerCase();
  return `${exportName.slice(0, MAX_EXPORT_PREFIX)}-${suffix}`;
}

/** Go's big.Int.Text(62): most significant digit first, no leading zeros. */
function base62(n: bigint): string {
  if (n === 0n) return '0';
  let out = '';
  while (n > 0n) {
    out = BASE62_DIGITS[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out;
}
