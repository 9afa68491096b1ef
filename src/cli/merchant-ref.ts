// `--merchant <mid>` of the commands that only read: the merchant's row, found without the
// merchant service (src/cli/context.ts, withReader), or ERR_MERCHANT_NOT_FOUND.
import { findMerchantByMid, type MerchantRow } from '../db/queries/find-merchant.ts';
import { RescuedError } from '../errors.ts';
import type { Reader } from './context.ts';

export async function merchantByMid(reader: Reader, mid: string): Promise<MerchantRow> {
  const merchant = /^[0-9a-f-]{36}$/i.test(mid) ? await findMerchantByMid(reader.database.db, mid) : undefined;
  if (!merchant) throw new RescuedError('ERR_MERCHANT_NOT_FOUND', `No merchant with mid ${mid}.`);
  return merchant;
}
