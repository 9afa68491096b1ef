// The six gateway fakes (test/fakes/*) as the campaign uses them: one account of each type
// for a merchant, the money each fake took, and seeded faults or latency on their charge
// calls. Charges are matched to orders by amount, which the campaign makes unique per order:
// the fakes name a charge by the gateway's own fields (Authorize.Net keeps a 20-character
// invoice number, not our key), but every one of them records the amount.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAdyenFake, type AdyenBehaviour } from '../../fakes/adyen/server.ts';
import { startAuthorizeNetFake, type AuthorizeNetBehaviour } from '../../fakes/authorizenet/server.ts';
import { startBraintreeFake, type BraintreeBehaviour } from '../../fakes/braintree/server.ts';
import { startBridgeFake, type BridgeBehaviour } from '../../fakes/http/server.ts';
import { startNmiFake, type NmiBehaviour } from '../../fakes/nmi/server.ts';
import { startStripeFake, type StripeBehaviour } from '../../fakes/stripe/server.ts';
import type { Random } from './random.ts';

export const GATEWAYS = ['stripe', 'adyen', 'braintree', 'authorizenet', 'nmi', 'http'] as const;
export type Gateway = (typeof GATEWAYS)[number];

/** A fault a fake can play on a charge call: no answer, a reset before or after charging, 5xx, 429. */
export type Fault = 'timeout' | 'reset' | 'reset_after_charge' | 'status_500' | 'status_503' | 'status_429';
export const FAULT_KINDS: Fault[] = ['timeout', 'reset', 'reset_after_charge', 'status_500', 'status_503', 'status_429'];

type AnyBehaviour = StripeBehaviour | AdyenBehaviour | BraintreeBehaviour | AuthorizeNetBehaviour | NmiBehaviour | BridgeBehaviour;

interface Handle {
  url: string;
  credentials: Record<string, unknown>;
  /** Amounts (minor units) of the money taken and not voided. */
  amounts(): number[];
  script(...b: AnyBehaviour[]): void;
  fallback(b: AnyBehaviour): void;
  close(): Promise<void>;
}

export interface Fakes {
  /** processor.gatewayUrls */
  urls: Record<Gateway, string>;
  /** A PEM file holding the Adyen fake's certificate (NODE_EXTRA_CA_CERTS of the daemon). */
  caFile: string;
  credentials(g: Gateway): Record<string, unknown>;
  /** Money taken at every fake, counted by amount; with `since` (an earlier count), only what was taken after it. */
  chargesByAmount(since?: Map<number, number>): Map<number, number>;
  /** Every charge call answers after `ms` (and approves). */
  latency(g: Gateway, ms: number): void;
  /** `calls` scripted charge calls: a share `rate` of them fail one of FAULT_KINDS, drawn from `random`. */
  scriptFaults(g: Gateway, calls: number, rate: number, random: Random): Record<Fault, number>;
  approveAll(): void;
  close(): Promise<void>;
}

const minor = (v: unknown) => (typeof v === 'string' && v.includes('.') ? Math.round(Number(v) * 100) : Number(v));

function asBehaviour(f: Fault): AnyBehaviour {
  if (f.startsWith('status_')) return { kind: 'status', status: Number(f.slice(7)) as 500 } as AnyBehaviour;
  return { kind: f } as AnyBehaviour;
}

export async function startFakes(dir: string): Promise<Fakes> {
  const [stripe, adyen, braintree, anet, nmi, bridge] = await Promise.all([
    startStripeFake(), startAdyenFake({ rawCardData: true }), startBraintreeFake({ accounts: { rescued_usd: 'USD' }, duplicateWindowMs: 0 }),
    startAuthorizeNetFake(), startNmiFake(), startBridgeFake(),
  ]);
  const caFile = join(dir, 'adyen-fake-ca.pem');
  writeFileSync(caFile, adyen.ca);
  const handles: Record<Gateway, Handle> = {
    stripe: { url: stripe.url, credentials: { secretKey: stripe.key, rawCardData: true }, amounts: () => [...stripe.charges.values()].map((c) => c.amount), script: (...b) => stripe.script(...(b as StripeBehaviour[])), fallback: (b) => stripe.fallback(b as StripeBehaviour), close: () => stripe.close() },
    adyen: {
      url: adyen.url, credentials: { apiKey: adyen.apiKey, merchantAccount: adyen.merchantAccount, environment: 'test', returnUrl: 'https://shop.example/return', rawCardData: true },
      amounts: () => [...adyen.charges.values()].map((c) => c.amount), script: (...b) => adyen.script(...(b as AdyenBehaviour[])), fallback: (b) => adyen.fallback(b as AdyenBehaviour), close: () => adyen.close(),
    },
    braintree: {
      url: braintree.url, credentials: { ...braintree.credentials, environment: 'sandbox', merchantAccountId: 'rescued_usd', rawCardData: true },
      amounts: () => [...braintree.charges.values()].map((c) => minor(c.amount)), script: (...b) => braintree.script(...(b as BraintreeBehaviour[])), fallback: (b) => braintree.fallback(b as BraintreeBehaviour), close: () => braintree.close(),
    },
    authorizenet: {
      url: anet.url, credentials: { apiLoginId: anet.apiLoginId, transactionKey: anet.transactionKey, environment: 'sandbox' },
      amounts: () => [...anet.charges.values()].map((c) => minor(c.amount)), script: (...b) => anet.script(...(b as AuthorizeNetBehaviour[])), fallback: (b) => anet.fallback(b as AuthorizeNetBehaviour), close: () => anet.close(),
    },
    nmi: { url: nmi.url, credentials: { securityKey: nmi.key }, amounts: () => [...nmi.charges.values()].map((c) => minor(c.amount)), script: (...b) => nmi.script(...(b as NmiBehaviour[])), fallback: (b) => nmi.fallback(b as NmiBehaviour), close: () => nmi.close() },
    http: { url: bridge.url, credentials: { url: bridge.url, secret: bridge.secret }, amounts: () => [...bridge.charges.values()].map((c) => c.amount), script: (...b) => bridge.script(...(b as BridgeBehaviour[])), fallback: (b) => bridge.fallback(b as BridgeBehaviour), close: () => bridge.close() },
  };
  return {
    urls: Object.fromEntries(GATEWAYS.map((g) => [g, handles[g].url])) as Record<Gateway, string>,
    caFile,
    credentials: (g) => handles[g].credentials,
    chargesByAmount(since) {
      const by = new Map<number, number>();
      for (const g of GATEWAYS) for (const a of handles[g].amounts()) by.set(a, (by.get(a) ?? 0) + 1);
      for (const [a, n] of since ?? []) by.set(a, (by.get(a) ?? 0) - n);
      return by;
    },
    latency: (g, ms) => handles[g].fallback({ kind: 'delay', ms } as AnyBehaviour),
    scriptFaults(g, calls, rate, random) {
      const counts = Object.fromEntries(FAULT_KINDS.map((f) => [f, 0])) as Record<Fault, number>;
      const list: AnyBehaviour[] = [];
      for (let i = 0; i < calls; i++) {
        const f = random() < rate ? FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)]! : undefined;
        if (f) counts[f]++;
        list.push(f ? asBehaviour(f) : ({ kind: g === 'adyen' ? 'authorise' : 'approve' } as AnyBehaviour));
      }
      handles[g].script(...list);
      return counts;
    },
    approveAll() {
      for (const g of GATEWAYS) handles[g].fallback({ kind: g === 'adyen' ? 'authorise' : 'approve' } as AnyBehaviour);
    },
    close: async () => void (await Promise.all(GATEWAYS.map((g) => handles[g].close()))),
  };
}
