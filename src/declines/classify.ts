// Decline classification: (responseCodeSource, responseCode, responseDescription) plus the
// network's own signals → a canonical reason and the class the engine acts on.
// Precedence (shared/reference/gateway-decline-codes.md): network advice (Mastercard MAC,
// Visa category via the raw code, Stripe advice_code) beats the gateway code, which beats
// free text; a gateway "soft" code whose raw ISO code is Visa category 1 is still hard.
import type { CanonicalReason, DeclineClass, Row, SoftKind, TableClass } from './reasons.ts';
import { joinClass, splitClass } from './reasons.ts';
import type { Brand } from './brands.ts';
import { mastercardRulesApply, normaliseBrand, visaRulesApply } from './brands.ts';
import type { ClassificationSource, TableMatch } from './sources.ts';
import { lookupCode, lookupIsoMatch, sourceKey } from './sources.ts';
import { classifyText } from './text.ts';
import { looksLikeIsoCode, normaliseIsoCode } from './iso8583.ts';
import type { VisaCategory } from './visa.ts';
import { VISA_CODE_MEANINGS, visaCategory } from './visa.ts';
import type { AdviceRules } from './mastercard.ts';
import { MASTERCARD_ADVICE_MEANINGS, defaultAdviceRules, normaliseAdviceCode } from './mastercard.ts';
import { STRIPE_BLOCKED_OUTCOME, lookupStripeAdvice } from './tables/stripe.ts';
import { NMI_RETRY_AFTER_HOURS } from './tables/nmi.ts';

export interface DeclineInput {
  responseCodeSource?: string | null;
  responseCode?: string | null;
  responseDescription?: string | null;
  /** Stripe's outcome.reason travels here or in the description. */
  responseSubStatus?: string | null;
  cardBrand?: string | null;
  /** A Mastercard MAC ("03", "25") or a Stripe advice_code ("do_not_try_again"). */
  merchantAdviceCode?: string | null;
  /** The raw ISO 8583 code behind a gateway code, where the gateway exposes it. */
  networkCode?: string | null;
  /** When the decline happened: network rules that change on a date are read for that day. */
  at?: Date;
}

export type AdviceAction = 'stop' | 'update_card' | 'retry_later' | 'retry_after';

export interface Advice {
  network: 'mastercard' | 'stripe' | 'gateway';
  code: string;
  action: AdviceAction;
  /** For retry_after: not before this long after the decline. */
  delayMs?: number;
}

export interface Classification {
  reason: CanonicalReason;
  class: DeclineClass;
  softKind?: SoftKind;
  source: ClassificationSource;
  /** The code as looked up (normalised), absent for text and default. */
  code?: string;
  /** The raw ISO code used for network rules, where one is known. */
  networkCode?: string;
  visaCategory?: VisaCategory;
  advice?: Advice;
}

export interface ClassifyOptions {
  /** Class per canonical reason, over the tables' own. */
  reasonClasses?: Partial<Record<CanonicalReason, TableClass>>;
  /** Class per `<source>:<code>` (e.g. "stripe:restricted_card", "iso8583:59"), over everything else of config. */
  codeClasses?: Readonly<Record<string, TableClass>>;
  /** The network rules of the engine (src/engine/rules.ts); the Mastercard advice rules are read. */
  rules?: AdviceRules;
}

interface Working {
  reason: CanonicalReason;
  cls: TableClass;
  source: ClassificationSource;
  code?: string;
}

const DEFAULT_ROW: Row = ['unknown', 'soft-generic']; // "NA" or nothing known: cautious soft

export function classifyDecline(input: DeclineInput, options: ClassifyOptions = {}): Classification {
  const rules = options.rules ?? defaultAdviceRules;
  const brand = brandOf(input);
  const match = lookupCode(input.responseCodeSource, input.responseCode);
  const rawMatch = input.networkCode ? lookupIsoMatch(input.networkCode) : undefined;
  const rawCode = rawIsoCode(input, match);

  let w = baseClassification(input, match, rawMatch);
  w = applyConfig(w, options);
  if (isStripeBlocked(input)) w = { ...w, reason: 'do_not_retry', cls: 'hard' };

  let advice: Advice | undefined = gatewayAdvice(match);
  const stripe = stripeAdvice(input.merchantAdviceCode);
  if (stripe) ({ w, advice } = applyAdvice(w, stripe.row, stripe.advice));
  const mac = mastercardRulesApply(brand) ? normaliseAdviceCode(input.merchantAdviceCode) : undefined;
  const macAdvice = mac ? mastercardAdvice(mac, rules) : undefined;
  if (mac && macAdvice) ({ w, advice } = applyAdvice(w, MASTERCARD_ADVICE_MEANINGS[mac as keyof typeof MASTERCARD_ADVICE_MEANINGS], macAdvice));

  let category: VisaCategory | undefined;
  if (rawCode && visaRulesApply(brand)) {
    category = visaCategory(rawCode, input.at);
    w = applyVisaCategory(w, rawCode, category);
  }
  return finish(w, rawCode, category, advice);
}

function brandOf(input: DeclineInput): Brand {
  const brand = normaliseBrand(input.cardBrand);
  if (brand !== 'unknown') return brand;
  // A network named as the code's source tells the brand when the card does not.
  const hint = normaliseBrand(sourceKey(input.responseCodeSource));
  return hint === 'visa' || hint === 'mastercard' ? hint : 'unknown';
}

function rawIsoCode(input: DeclineInput, match: TableMatch | undefined): string | undefined {
  if (input.networkCode && looksLikeIsoCode(input.networkCode)) return normaliseIsoCode(input.networkCode);
  if (match?.source === 'iso8583') return match.code;
  return match?.impliedIso;
}

/**
 * Gateway code first; its raw ISO code when the gateway's own answer is only a generic
 * decline (the issuer's code says more); then free text; then the cautious default.
 */
function baseClassification(input: DeclineInput, match: TableMatch | undefined, rawMatch: TableMatch | undefined): Working {
  if (match && !(rawMatch && match.source !== 'iso8583' && match.row[1] === 'soft-generic')) {
    return { reason: match.row[0], cls: match.row[1], source: match.source, code: match.code };
  }
  if (rawMatch) return { reason: rawMatch.row[0], cls: rawMatch.row[1], source: 'iso8583', code: rawMatch.code };
  const text = classifyText(input.responseDescription);
  if (text) return { reason: text[0], cls: text[1], source: 'text' };
  return { reason: DEFAULT_ROW[0], cls: DEFAULT_ROW[1], source: 'default' };
}

function applyConfig(w: Working, options: ClassifyOptions): Working {
  const byCode = w.code !== undefined ? options.codeClasses?.[`${w.source}:${w.code}`] : undefined;
  const cls = byCode ?? options.reasonClasses?.[w.reason];
  return cls ? { ...w, cls } : w;
}

function isStripeBlocked(input: DeclineInput): boolean {
  const text = `${input.responseSubStatus ?? ''} ${input.responseDescription ?? ''}`.toLowerCase();
  return text.includes(STRIPE_BLOCKED_OUTCOME);
}

function gatewayAdvice(match: TableMatch | undefined): Advice | undefined {
  if (match?.source !== 'nmi') return undefined;
  const hours = (NMI_RETRY_AFTER_HOURS as Record<string, number>)[match.code];
  return hours ? { network: 'gateway', code: match.code, action: 'retry_after', delayMs: hours * 3_600_000 } : undefined;
}

function stripeAdvice(code: string | null | undefined): { row: Row; advice: Advice } | undefined {
  if (!code) return undefined;
  const row = lookupStripeAdvice(code);
  if (!row) return undefined;
  const action: AdviceAction = row[1] === 'hard' ? 'stop' : row[1] === 'data' ? 'update_card' : 'retry_later';
  return { row, advice: { network: 'stripe', code: code.trim().toLowerCase(), action } };
}

function mastercardAdvice(mac: string, rules: AdviceRules): Advice | undefined {
  const meaning = (MASTERCARD_ADVICE_MEANINGS as Record<string, Row>)[mac];
  if (rules.mastercard.stopAdvice.includes(mac)) {
    return { network: 'mastercard', code: mac, action: meaning?.[1] === 'data' ? 'update_card' : 'stop' };
  }
  const delayMs = rules.mastercard.adviceDelaysMs[mac];
  if (delayMs !== undefined) return { network: 'mastercard', code: mac, action: 'retry_after', delayMs };
  return meaning ? { network: 'mastercard', code: mac, action: 'retry_later' } : undefined;
}

/**
 * Advice beats the code. A stopping advice keeps a reason that is already hard (it says more);
 * a retry advice makes the decline soft, keeping the code's own kind of soft when it has one.
 */
function applyAdvice(w: Working, meaning: Row | undefined, advice: Advice): { w: Working; advice: Advice } {
  if (advice.action === 'stop' || advice.action === 'update_card') {
    const cls: TableClass = advice.action === 'stop' ? 'hard' : 'data';
    if (w.cls === 'hard') return { w, advice };
    return { w: { ...w, reason: meaning?.[0] ?? 'do_not_retry', cls }, advice };
  }
  if (w.cls.startsWith('soft-')) return { w, advice };
  return { w: { ...w, reason: meaning?.[0] ?? 'try_again_later', cls: meaning?.[1] ?? 'soft-generic' }, advice };
}

/** Category 1: never (hard, whatever the gateway said); category 3: revalidate (data). */
function applyVisaCategory(w: Working, rawCode: string, category: VisaCategory): Working {
  if (category === 1) return { ...w, cls: 'hard' };
  if (category !== 3 || w.cls === 'hard' || w.cls === 'data') return w;
  const visaMeaning = (VISA_CODE_MEANINGS as Record<string, Row>)[rawCode];
  return { ...w, reason: visaMeaning?.[0] ?? w.reason, cls: 'data' };
}

function finish(w: Working, rawCode: string | undefined, category: VisaCategory | undefined, advice: Advice | undefined): Classification {
  const { class: cls, softKind } = splitClass(w.cls);
  const out: Classification = { reason: w.reason, class: cls, source: w.source };
  if (softKind) out.softKind = softKind;
  if (w.code !== undefined) out.code = w.code;
  if (rawCode) out.networkCode = rawCode;
  if (category !== undefined) out.visaCategory = category;
  if (advice) out.advice = advice;
  return out;
}

/** The five-way class of a classification, as the reference tables write it. */
export function tableClassOf(c: Pick<Classification, 'class' | 'softKind'>): TableClass {
  return joinClass(c.class, c.softKind);
}
