// The sweep the end-to-end tests end with must be able to fail: a test card planted in a log,
// a file of the data folder or a text column is found, and so is a CVV beside its field name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { cardDataHits } from '../../helpers/card-sweep.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { key32 } from '../../helpers/keys.ts';

describe.each(DB_KINDS)('card-data sweep on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-sweep-'));
  let t: TestDatabase;
  beforeAll(async () => {
    t = await freshDatabase(kind);
  });
  afterAll(async () => {
    await t.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds nothing where there is nothing, and masked numbers are fine', async () => {
    writeFileSync(join(dataDir, 'ack.json'), '{"card":"411111******1111","cvvResultCode":"M"}');
    expect(await cardDataHits({ dataDir, database: t.database, logs: 'card 411111******1111 "cvv":"[redacted]"', cvvs: ['123'] })).toEqual([]);
  });

  it('finds a test card in a log, in a file of the data folder, and in a text column', async () => {
    mkdirSync(join(dataDir, 'archive', 'm'), { recursive: true });
    writeFileSync(join(dataDir, 'archive', 'm', 'batch.json'), '{"cardNumber":"5555555555554444"}');
    const merchants = createMerchantService({ db: t.database.db, vault: keyRingFrom({ k: key32() }, 'k'), mode: 'sandbox' });
    await merchants.add({ name: 'Leaky 4242424242424242' });
    const hits = await cardDataHits({ dataDir, database: t.database, logs: 'GET /v1/orders/4111111111111111 "cvv":"737"', cvvs: ['737'] });
    expect(hits).toEqual(expect.arrayContaining([
      'log: card ending 1111 in clear',
      'log: a CVV next to cvv',
      `${join('archive', 'm', 'batch.json')}: card ending 4444 in clear`,
      'merchants.name: card ending 4242 in clear',
    ]));
  });

  it('finds a card written in another spelling, and a number the test names, with the daemon\'s detector', async () => {
    const escaped = [...'5105105105105100'].map((d) => `\\u003${d}`).join('');
    writeFileSync(join(dataDir, 'escaped.json'), `{"note":"${escaped}"}`);
    writeFileSync(join(dataDir, 'full-width.txt'), Buffer.from('４０１２８８８８８８８８１８８１', 'utf8'));
    const merchants = createMerchantService({ db: t.database.db, vault: keyRingFrom({ k: key32() }, 'k'), mode: 'sandbox' });
    await merchants.add({ name: 'Dotted 3782  822463  10005' });
    const planted = '6011000990139424';
    const hits = await cardDataHits({ dataDir, database: t.database, logs: 'card 5555.5555.5555.4444 and 6011 0009 9013 9424', pans: [planted] });
    expect(hits).toEqual(expect.arrayContaining([
      'log: card ending 4444 in clear',
      'log: card ending 9424 in clear',
      'escaped.json: card ending 5100 in clear',
      'full-width.txt: card ending 1881 in clear',
      'merchants.name: card ending 0005 in clear',
    ]));
  });
});
