// What counts as a correct refusal, and the tally the table is printed from. An input is
// refused correctly when the answer is one of those its case accepts and every error code in
// it is in the catalogue (src/errors.ts) with the catalogue's HTTP status; a crash is the
// daemon dying, hanging or answering 5xx; anything else is a wrong answer, kept as an example.
import { ERRORS } from '../../../src/catalogue.ts';
import type { RawResponse } from './http-client.ts';

/** One acceptable answer: a status and, when set, the error code (JSON `statusCode`, or a console page's `data-code`). */
export interface Accept {
  status: number;
  code?: string;
  /** A read that ignores what it does not know: 200, and the canary never echoed. */
  ignored?: true;
}

export const CANARY = 'polluted_canary';

/** Examples printed under the table: enough to start from, short enough to read. */
const MAX_EXAMPLES = 10;

export type Result = { kind: 'ok' } | { kind: 'wrong' | 'crash'; detail: string };

export const ok: Result = { kind: 'ok' };
export const wrong = (detail: string): Result => ({ kind: 'wrong', detail });
export const crash = (detail: string): Result => ({ kind: 'crash', detail });

const codeOf = (r: RawResponse): string | undefined => {
  const fromJson = r.json?.statusCode;
  if (typeof fromJson === 'string') return fromJson;
  return /data-code="([A-Z_]+)"/.exec(r.body)?.[1];
};

const show = (r: RawResponse) => `${r.status || 'no answer'}${codeOf(r) ? ` ${codeOf(r)}` : ''}`;
const want = (accepts: Accept[]) => accepts.map((a) => `${a.status}${a.code ? ` ${a.code}` : a.ignored ? ' (ignored)' : ''}`).join(' | ');

/** The verdict on one HTTP answer. */
export function judgeHttp(r: RawResponse, accepts: Accept[]): Result {
  if (r.status >= 500) return crash(`${show(r)}; expected ${want(accepts)}`);
  if (r.body.includes(CANARY)) return wrong(`the answer echoes the polluting key ${CANARY}`);
  const code = codeOf(r);
  if (code && r.status >= 400) {
    const spec = (ERRORS as Record<string, { status: number }>)[code];
    if (!spec) return wrong(`${show(r)}: ${code} is not in the catalogue`);
    if (spec.status !== r.status) return wrong(`${show(r)}: the catalogue says ${code} is ${spec.status}`);
  }
  const hit = accepts.some((a) => a.status === r.status && (a.code === undefined || a.code === code));
  return hit ? ok : wrong(`${show(r)}; expected ${want(accepts)}`);
}

export interface Row {
  label: string;
  tried: number;
  refused: number;
  wrong: number;
  crashes: number;
}

export interface Example {
  label: string;
  input: string;
  detail: string;
}

/** Rows in the order they were first used; examples of every wrong answer and crash. */
export class Tally {
  readonly rows = new Map<string, Row>();
  readonly examples: Example[] = [];

  add(label: string, input: string, result: Result): void {
    let row = this.rows.get(label);
    if (!row) this.rows.set(label, (row = { label, tried: 0, refused: 0, wrong: 0, crashes: 0 }));
    row.tried++;
    if (result.kind === 'ok') row.refused++;
    else {
      if (result.kind === 'wrong') row.wrong++;
      else row.crashes++;
      this.examples.push({ label, input, detail: `${result.kind === 'crash' ? 'CRASH' : 'wrong'}: ${result.detail}` });
    }
  }

  /** A finding about a whole group (stored rows, a failed health check): not an input of its own. */
  flag(label: string, what: string, result: Result): void {
    this.add(label, what, result);
    this.rows.get(label)!.tried--;
  }

  totals(): Row {
    const t: Row = { label: 'total', tried: 0, refused: 0, wrong: 0, crashes: 0 };
    for (const r of this.rows.values()) {
      t.tried += r.tried;
      t.refused += r.refused;
      t.wrong += r.wrong;
      t.crashes += r.crashes;
    }
    return t;
  }

  /** A Markdown table (it reads as plain text too), then the wrong answers and crashes. */
  render(): string {
    const line = (r: Row) => `| ${r.label} | ${r.tried} | ${r.refused} | ${r.wrong} | ${r.crashes} |`;
    const t = this.totals();
    const out = ['| Category / target | Inputs tried | Refused correctly | Wrong answers | Crashes |', '|---|--:|--:|--:|--:|'];
    for (const r of this.rows.values()) out.push(line(r));
    out.push(`| **${t.label}** | **${t.tried}** | **${t.refused}** | **${t.wrong}** | **${t.crashes}** |`);
    if (this.examples.length) {
      out.push('', `Wrong answers and crashes (${Math.min(MAX_EXAMPLES, this.examples.length)} of ${this.examples.length}):`);
      for (const e of this.examples.slice(0, MAX_EXAMPLES)) out.push(`- ${e.label} — ${e.input}: ${e.detail}`);
    }
    return out.join('\n');
  }
}
