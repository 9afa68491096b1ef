// Free-text fallback: classify `responseDescription` by keyword when the source is unknown
// ("NA") or the code is in no table.
// Source: shared/reference/gateway-decline-codes.md, "Free-text fallbacks". Case-insensitive,
// whole words, groups in this order, first hit wins: negatives contain positive words ("do not
// try again" contains "try again"), so the stopping groups come first. Within a group the
// first listed phrase that occurs names the reason; the group gives the class.
import type { CanonicalReason, Row, TableClass } from './reasons.ts';

type Phrases = readonly (readonly [phrase: string, reason: CanonicalReason])[];

export const TEXT_RULES = [
  {
    cls: 'hard',
    phrases: [
      ['do not try again', 'do_not_retry'], ["don't try again", 'do_not_retry'], ['do not retry', 'do_not_retry'],
      ["don't retry", 'do_not_retry'], ['stop recurring', 'stop_payment'], ['stop payment', 'stop_payment'],
      ['revocation', 'stop_payment'], ['revoked', 'stop_payment'], ['cancelled recurring', 'stop_payment'],
    ],
  },
  {
    cls: 'hard',
    phrases: [
      ['stolen', 'lost_or_stolen'], ['lost card', 'lost_or_stolen'], ['lost', 'lost_or_stolen'],
      ['pick up', 'pickup_card'], ['pickup', 'pickup_card'], ['retain card', 'pickup_card'],
      ['suspected fraud', 'suspected_fraud'], ['fraud', 'suspected_fraud'], ['security violation', 'security_violation'],
      ['closed account', 'closed_account'], ['account closed', 'closed_account'], ['no such account', 'invalid_account'],
      ['blocked card', 'blocked_card'], ['blacklist', 'blocked_card'],
    ],
  },
  {
    cls: 'data',
    phrases: [
      ['expired', 'expired_card'], ['expiration', 'expired_card'], ['exp date', 'expired_card'],
      ['cvv', 'cvv_failure'], ['cvc', 'cvv_failure'], ['cvv2', 'cvv_failure'], ['card code', 'cvv_failure'],
      ['security code', 'cvv_failure'], ['avs', 'avs_failure'], ['address mismatch', 'avs_failure'],
      ['zip', 'avs_failure'], ['postal', 'avs_failure'], ['invalid card', 'invalid_card_number'],
      ['invalid number', 'invalid_card_number'], ['incorrect number', 'invalid_card_number'],
      ['invalid account number', 'invalid_card_number'], ['authentication required', 'authentication_required'],
      ['3ds', 'authentication_required'], ['3d secure', 'authentication_required'], ['sca', 'authentication_required'],
      ['update card', 'new_account_information'], ['new account information', 'new_account_information'],
    ],
  },
  {
    cls: 'soft-funds',
    phrases: [
      ['insufficient', 'insufficient_funds'], ['not sufficient', 'insufficient_funds'], ['nsf', 'insufficient_funds'],
      ['not enough balance', 'insufficient_funds'], ['over limit', 'limit_exceeded'], ['exceeds limit', 'limit_exceeded'],
      ['limit exceeded', 'limit_exceeded'], ['withdrawal limit', 'limit_exceeded'], ['credit limit', 'limit_exceeded'],
      ['frequency limit', 'limit_exceeded'], ['velocity', 'limit_exceeded'],
    ],
  },
  {
    cls: 'soft-temporary',
    phrases: [
      ['try again', 'try_again_later'], ['retry', 'try_again_later'], ['timeout', 'issuer_unavailable'],
      ['timed out', 'issuer_unavailable'], ['unavailable', 'issuer_unavailable'], ['inoperative', 'issuer_unavailable'],
      ['not responding', 'issuer_unavailable'], ['system error', 'processing_error'], ['malfunction', 'processing_error'],
      ['processing error', 'processing_error'], ['communication error', 'processing_error'],
      ['network error', 'processing_error'], ['re-enter', 'processing_error'], ['reenter', 'processing_error'],
      ['maintenance', 'processing_error'],
    ],
  },
  { cls: 'soft-generic', phrases: [['duplicate', 'duplicate']] }, // check for an earlier success first
  {
    // Vaguer than the coded equivalents, some of which are hard: free text does not justify
    // a permanent stop.
    cls: 'soft-generic',
    phrases: [
      ['do not honor', 'do_not_honor'], ['do not honour', 'do_not_honor'], ['call issuer', 'call_issuer'],
      ['refer to issuer', 'call_issuer'], ['contact bank', 'call_issuer'], ['restricted', 'restricted_card'],
      ['not permitted', 'transaction_not_permitted'], ['not allowed', 'transaction_not_permitted'],
      ['declined', 'generic_decline'], ['refused', 'generic_decline'],
    ],
  },
] as const satisfies readonly { cls: TableClass; phrases: Phrases }[];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Whole words: no letter or digit on either side, so "lost" does not match "lostcard" and
// "sca" does not match "scan". Spaces in a phrase match any run of spaces or underscores.
function phraseRegex(phrase: string): RegExp {
  const body = phrase.split(' ').map(escape).join('[\\s_]+');
  return new RegExp(`(?<![a-z0-9])${body}(?![a-z0-9])`);
}

const COMPILED = TEXT_RULES.map((group) => ({
  cls: group.cls as TableClass,
  any: new RegExp(group.phrases.map(([p]) => phraseRegex(p).source).join('|')),
  phrases: group.phrases.map(([p, reason]) => ({ re: phraseRegex(p), reason: reason as CanonicalReason })),
}));

/** The row for a free-text description, or undefined when no phrase occurs. */
export function classifyText(description: string | null | undefined): Row | undefined {
  if (!description) return undefined;
  const text = description.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  for (const group of COMPILED) {
    if (!group.any.test(text)) continue;
    const hit = group.phrases.find((p) => p.re.test(text));
    if (hit) return [hit.reason, group.cls];
  }
  return undefined;
}
