import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, scrubText } from '../../src/log.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, log: createLogger({ level: 'trace', destination: destination as never }) };
}

const PAN = '4111111111111111';
const CVV = '737';
const SECRET = 'rcs_topSecretValue123';

describe('log redaction', () => {
  it('masks card-number-shaped digit runs in free text, leaving other numbers', () => {
    expect(scrubText(`card ${PAN} declined`)).toBe('card 411111******1111 declined');
    expect(scrubText('card 4111 1111 1111 1111')).toBe('card 411111******1111');
    expect(scrubText('order 1234567890123 amount 1999')).toBe('order 1234567890123 amount 1999'); // not Luhn-valid
    expect(scrubText('pan=4111-1111-1111-1111, next')).toBe('pan=411111******1111, next');
    // The digit groups of this mid form a Luhn-valid run; an identifier is left whole.
    expect(scrubText('mid f1f4ed7a-1662-4900-0008-2297fdc33840')).toBe('mid f1f4ed7a-1662-4900-0008-2297fdc33840');
  });

  it('keeps secrets, tokens, card numbers and CVVs out of every logger\'s output', () => {
    const { lines, log } = capture();
    const children = [log, log.child({ component: 'http' }), log.child({ component: 'intake' }).child({ batchId: 'b1' })];
    for (const l of children) {
      l.info({ headers: { authorization: `Bearer ${SECRET}` } }, 'request');
      l.info({ paymentMethod: { cardNumber: PAN, cardBinNumber: '411111' }, payment_method: { credit_card: { number: PAN, verification_value: CVV } } }, 'deep');
      l.warn({ clientSecret: SECRET, appSecret: SECRET, client_secret: SECRET, access_token: SECRET, authorizationToken: SECRET }, 'creds');
      l.error({ err: new Error(`bad card ${PAN}`) }, 'failure');
      l.info(`free text mentions ${PAN}`);
      l.info({ nested: [{ a: { b: { c: { cvv: CVV, pan: PAN } } } }] }, 'array');
    }
    const child = log.child({ token: SECRET });
    child.info('bound secret');
    const out = lines.join('');
    expect(lines.length).toBe(children.length * 6 + 1);
    expect(out).not.toContain(PAN);
    expect(out).not.toContain(SECRET);
    expect(out).not.toMatch(/"(cvv|verification_value)":"737"/);
    expect(out).toContain('411111******1111');
    expect(out).toContain('"cardBinNumber":"411111"');
  });
});
