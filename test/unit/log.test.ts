import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { DrizzleQueryError } from 'drizzle-orm';
import { createLogger, scrubText, scrubUrl } from '../../src/log.ts';

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

describe('the scrubber on free text, URLs and database errors', () => {
  it('redacts a CVV next to its name or right after a card number', () => {
    expect(scrubText('card 4242424242424242 cvv 5678')).toBe('card 424242******4242 cvv [redacted]');
    expect(scrubText('CVC: 123, CVV2=4567, security code is 890')).toBe('CVC: [redacted], CVV2=[redacted], security code is [redacted]');
    expect(scrubText('{"verification_value":"737"}')).toBe('{"verification_value":"[redacted]"}');
    // A short group glued to the number makes one longer run; the number in it is still found.
    expect(scrubText('card 4242424242424242 123')).toBe('card 424242******4242 [redacted]');
    expect(scrubText('card 4242 4242 4242 4242, 12/29, 1234')).toBe('card 424242******4242, 12/29, [redacted]');
    expect(scrubText('7 5105105105105100')).toBe('7 510510******5100');
    // No card number and no CVV word: numbers stay.
    expect(scrubText('order 12345 of 2024, amount 1999')).toBe('order 12345 of 2024, amount 1999');
  });

  it('scrubUrl masks a number in the path and redacts sensitive query values', () => {
    expect(scrubUrl('/v1/orders/5105105105105100')).toBe('/v1/orders/510510******5100');
    expect(scrubUrl('/v1/orders/5105%201051%200510%205100/refund')).toBe('/v1/orders/510510******5100/refund');
    expect(scrubUrl('/v1/tokenize?mid=m-1&card=4242424242424242&cvv=7777&environment=rtk_abc&payment_method%5Bcredit_card%5D%5Bnumber%5D=42'))
      .toBe('/v1/tokenize?mid=m-1&card=[redacted]&cvv=[redacted]&environment=[redacted]&payment_method%5Bcredit_card%5D%5Bnumber%5D=[redacted]');
    expect(scrubUrl('/v1/orders?ref=%34242424242424242&page=2&pan=1&token=t&client_secret=s&cvc=12')).toBe('/v1/orders?ref=[redacted]&page=2&pan=[redacted]&token=[redacted]&client_secret=[redacted]&cvc=[redacted]');
    expect(scrubUrl('/v1/orders/0d1c5f0e-8f7a-4b44-9d2e-2297fdc33840?limit=50')).toBe('/v1/orders/0d1c5f0e-8f7a-4b44-9d2e-2297fdc33840?limit=50');
  });

  it('logs a failed query as its statement and SQLSTATE code, never its parameters', () => {
    const { lines, log } = capture();
    const cause = Object.assign(new Error('invalid input syntax for type uuid: "jane.secret@example.com"'), { code: '22P02' });
    const err = new DrizzleQueryError('insert into "refunds" ("id", "message") values ($1, $2)', ['Jane Secret', 'jane.secret@example.com', CVV], cause);
    log.error({ err }, 'unhandled error');
    log.child({ component: 'http' }).error(err, 'failure');
    const out = lines.join('');
    expect(lines).toHaveLength(2);
    expect(out).not.toMatch(/Jane Secret|jane\.secret|params:|\$1/);
    for (const line of lines) expect(JSON.parse(line).err).toMatchObject({ type: 'DatabaseError', statement: 'insert refunds', code: '22P02', message: 'insert refunds failed: invalid input syntax for type uuid: [redacted]' });
  });
});
