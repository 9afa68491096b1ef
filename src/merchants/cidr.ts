// Normalises an allowed source range: "203.0.113.7" → "203.0.113.7/32", "2001:db8::/32"
// kept, host bits must be zero so a typo like 10.0.0.1/8 is not silently widened.
import { isIP } from 'node:net';
import { RescuedError } from '../errors.ts';

function bad(message: string): RescuedError {
  return new RescuedError('ERR_MERCHANT_INVALID_INPUT', message);
}

function hostBitsZero(address: string, family: 4 | 6, prefix: number): boolean {
  const bytes = family === 4 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
  for (let bit = prefix; bit < bytes.length * 8; bit++) {
    if ((bytes[bit >> 3]! >> (7 - (bit & 7))) & 1) return false;
  }
  return true;
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').filter(Boolean).map((h) => parseInt(h, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  const groups = tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const buf = Buffer.alloc(16);
  groups.forEach((g, i) => buf.writeUInt16BE(g, i * 2));
  return buf;
}

export function normaliseCidr(text: string): string {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const family = isIP(address);
  if ((family !== 4 && family !== 6) || extra !== undefined) throw bad(`"${text}" is not an IP address or CIDR range.`);
  if (family === 6 && address.includes('.')) throw bad('IPv4-mapped IPv6 ranges are not supported; give the IPv4 range.');
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
    throw bad(`"${text}" has an invalid prefix length.`);
  }
  if (!hostBitsZero(address, family, prefix)) throw bad(`"${text}" has host bits set; did you mean the network address?`);
  return `${address.toLowerCase()}/${prefix}`;
}
