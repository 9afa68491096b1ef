// The report's `since`, as the CLI and the API take it: an ISO 8601 date or date-time (RFC
// 1123 too), or a duration back from now (`90m`, `24h`, `30d`), the spelling of
// `webhooks replay --since`.
import { toUtcDateTime } from '../domain/dates.ts';
import { RescuedError } from '../errors.ts';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseSince(text: string | undefined, now: Date): Date | undefined {
  if (text === undefined || text === '') return undefined;
  const t = text.trim();
  const rel = /^(\d{1,6})\s*([mhd])$/.exec(t);
  if (rel) return new Date(now.getTime() - Number(rel[1]) * UNITS[rel[2]!]!);
  const iso = toUtcDateTime(t);
  const ms = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) throw new RescuedError('ERR_REPORT_INVALID_QUERY', `since: "${text.slice(0, 40)}" is neither a time (2026-11-01T00:00:00Z) nor a duration (24h, 30d).`, [{ field: 'since', code: 'ERR_REPORT_INVALID_QUERY', message: 'a time or a duration back from now' }]);
  return new Date(ms);
}
