// A length of time as an operator types it: a whole number and a unit, `90s`, `90m`, `24h`,
// `7d`. One reading for every command that takes one (`webhooks replay --since`,
// `merchant rotate-tokenization-key --keep-old-for`), so the same text means the same time.

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `90m`-style text, or undefined when the text is not a duration. */
export function parseDurationMs(text: string): number | undefined {
  const m = /^(\d{1,9})\s*([smhd])$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}
