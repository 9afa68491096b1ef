// The decline in a processor's answer, classified. A gateway's own code (rawCode) is read
// with that gateway's table, the ISO code beside it as the raw network code (Visa categories
// and Mastercard rules read it); the sandbox's and the HTTP bridge's answers carry ISO 8583
// codes and are read as such.
import { classifyDecline, type Classification, type ClassifyOptions } from './classify.ts';

export interface AnswerCodes {
  /** The account type that answered (absent: the built-in processor). */
  source?: string;
  rawCode?: string;
  responseCode: string;
  adviceCode?: string;
}

const ISO_SOURCES = new Set(['sandbox', 'http']);

export function answerClassification(answer: AnswerCodes, fallbackSource: string, ctx: { cardBrand?: string | null; at: Date }, options: ClassifyOptions = {}): Classification {
  const base = { merchantAdviceCode: answer.adviceCode ?? null, cardBrand: ctx.cardBrand ?? null, at: ctx.at };
  if (answer.source && !ISO_SOURCES.has(answer.source) && answer.rawCode) {
    return classifyDecline({ ...base, responseCodeSource: answer.source, responseCode: answer.rawCode, networkCode: answer.responseCode }, options);
  }
  const source = answer.source === 'http' ? 'iso8583' : fallbackSource;
  return classifyDecline({ ...base, responseCodeSource: source, responseCode: answer.responseCode }, options);
}
