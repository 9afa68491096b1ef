// The processor the engine and the HTTP routes call: it routes each charge to one of the
// merchant's own gateway accounts (routing.ts), through that account's limits
// (account-limits.ts) and connector, and answers in the one shape the engine records. In
// sandbox mode a merchant without accounts keeps the built-in sandbox processor; in
// production there is no silent sandbox: no usable account is ERR_PROCESSOR_NO_ACCOUNT.
// Card numbers are revealed from the vault for the call only, for accounts that take them.
import type { ResolvedConfig } from '../config/index.ts';
import type { Db } from '../db/client.ts';
import { activeProcessorAccounts, processorAccountById, type ProcessorAccountRow } from '../db/queries/processor-accounts.ts';
import { RescuedError } from '../errors.ts';
import { scrubText } from '../scrub.ts';
import type { Logger } from '../log.ts';
import { gatewayCalls } from '../metrics.ts';
import type { KeyRing } from '../vault/cipher.ts';
import type { RevealedCard } from '../vault/service.ts';
import { openCredentials } from './accounts.ts';
import { createAccountLimiter, type AccountLimiter } from './account-limits.ts';
import { GatewayError, type AccountType, type ChargeRequest, type Connector, type GatewayAnswer } from './connector.ts';
import { FIELD_CUSTOMER, FIELD_PAYMENT_METHOD } from './order-facts.ts';
import { ACCOUNT_KINDS } from './registry.ts';
import { chooseAccount } from './routing.ts';
import { localAnswersOf, type AuthorizeRequest, type LookupRequest, type Processor, type ProcessorResponse, type RefundRequest, type Route } from './types.ts';

export type ProcessorSettings = ResolvedConfig['processor'];

export function connectorFor(type: AccountType, credentials: unknown, settings: Pick<ProcessorSettings, 'timeoutMs' | 'gatewayUrls'>): Connector {
  const kind = ACCOUNT_KINDS[type];
  if (!kind?.create) throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', `No connector for ${type} accounts.`);
  const baseUrl = settings.gatewayUrls[type];
  return kind.create(credentials as never, { timeoutMs: settings.timeoutMs, ...(baseUrl ? { baseUrl } : {}) });
}

export interface RouterDeps {
  db: Db;
  ring: KeyRing;
  vault: { reveal(merchantId: string, token: string): Promise<RevealedCard | undefined> };
  /** The built-in sandbox processor; absent in production mode. */
  sandbox: Processor | undefined;
  mode: 'sandbox' | 'production';
  settings: ProcessorSettings;
  log: Logger;
}

interface Live {
  row: ProcessorAccountRow;
  connector: Connector | undefined;
  limiter: AccountLimiter;
}

/** How long a merchant's list of accounts is trusted before it is read again. */
const ACCOUNTS_TTL_MS = 5000;

type Target = { live: Live; route: Route } | { live: undefined; route: Route };

export function createProcessorRouter(deps: RouterDeps): Processor {
  const log = deps.log.child({ component: 'processor' });
  const byId = new Map<string, Live>();
  const lists = new Map<string, { at: number; ids: string[] }>();

  function live(row: ProcessorAccountRow): Live {
    const known = byId.get(row.id);
    if (known && known.row.credentialsSealed === row.credentialsSealed) return known;
    const connector = row.type === 'sandbox' ? undefined : connectorFor(row.type, openCredentials(deps.ring, row), deps.settings);
    const entry = { row, connector, limiter: known?.limiter ?? createAccountLimiter(deps.settings, { label: row.label, type: row.type }, log) };
    byId.set(row.id, entry);
    return entry;
  }

  async function accountsOf(merchantId: string): Promise<Live[]> {
    const cached = lists.get(merchantId);
    if (cached && Date.now() - cached.at < ACCOUNTS_TTL_MS) return cached.ids.map((id) => byId.get(id)!);
    const rows = await activeProcessorAccounts(deps.db, merchantId);
    const entries = rows.map(live);
    lists.set(merchantId, { at: Date.now(), ids: entries.map((e) => e.row.id) });
    return entries;
  }

  async function pinned(accountId: string): Promise<Live> {
    const known = byId.get(accountId);
    if (known) return known;
    const row = await processorAccountById(deps.db, accountId);
    if (!row) throw new RescuedError('ERR_PROCESSOR_NO_ACCOUNT', 'The processor account of this attempt no longer exists.');
    return live(row);
  }

  async function target(req: Pick<AuthorizeRequest, 'merchantId' | 'order' | 'accountId'>): Promise<Target> {
    if (req.accountId) return { live: await pinned(req.accountId), route: 'pinned' };
    const accounts = await accountsOf(req.merchantId);
    if (accounts.length === 0 && deps.sandbox) return { live: undefined, route: 'sandbox' };
    const choice = chooseAccount(accounts.map((l) => ({ ...l.row, live: l })), req.order);
    if (!choice.account) throw new RescuedError('ERR_PROCESSOR_NO_ACCOUNT', `No processor account can charge this order: ${choice.why}.`);
    return { live: choice.account.live, route: choice.route };
  }

  async function chargeOf(req: AuthorizeRequest, connector: Connector): Promise<ChargeRequest> {
    const facts = req.order;
    // A card the merchant sent later is charged from the vault, not the method the order named;
    // a card the gateway's updater changed is charged as its updated stored card, when it has one.
    const updated = req.credential?.kind === 'gateway' ? req.credential : undefined;
    const method = req.credential?.kind === 'vault' ? undefined : (updated?.gatewayReference ?? facts?.fields[FIELD_PAYMENT_METHOD]);
    const base: ChargeRequest = {
      idempotencyKey: req.idempotencyKey, reference: req.reference, amount: req.amount, currency: req.currency,
      initiator: req.isMIT ? 'merchant' : 'customer',
      ...(facts?.orderId ? { orderId: facts.orderId } : {}),
      ...(req.isMIT ? { storedCredential: facts?.isRecurring === false ? 'unscheduled' : 'recurring' } : {}),
      ...(facts?.schemeTransactionId ? { networkTransactionId: facts.schemeTransactionId } : {}),
      ...(req.cvv ? { cvv: req.cvv } : {}),
      ...(req.threeDSecure ? { threeDSecure: req.threeDSecure as ChargeRequest['threeDSecure'] } : {}),
    };
    if (method) return { ...base, gatewayMethod: { paymentMethod: method, ...(facts?.fields[FIELD_CUSTOMER] ? { customer: facts.fields[FIELD_CUSTOMER] } : {}) } };
    if (!connector.acceptsCards) throw new RescuedError('ERR_PROCESSOR_CARD_NOT_ACCEPTED', `The ${connector.type} account is not set to take card numbers: name the gateway's payment method in additionalFields ${FIELD_PAYMENT_METHOD}, or enable raw card data on the account.`);
    const card = await deps.vault.reveal(req.merchantId, req.cardToken);
    if (!card) throw new GatewayError('rejected', 'the order\'s card token is not in the vault', { code: 'card_unknown' });
    return { ...base, card: { number: card.pan, expMonth: updated?.expMonth ?? card.month, expYear: updated?.expYear ?? card.year, ...(card.holderName ? { holderName: card.holderName } : {}) } };
  }

  /** One call to an account: counted, limited, and its failures tagged with the account. */
  async function call(entry: Live, operation: string, body: (c: Connector) => Promise<GatewayAnswer | null>): Promise<GatewayAnswer | null> {
    const type = entry.row.type;
    try {
      const answer = await entry.limiter.run(() => body(entry.connector!));
      gatewayCalls.inc({ type, operation, outcome: answer === null ? 'not_found' : answer.approved ? 'approved' : 'declined' });
      return answer;
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      err.accountId = entry.row.id;
      gatewayCalls.inc({ type, operation, outcome: err.kind });
      // A refusal that says nothing about the card is the operator's to fix (credentials, limits).
      if (err.kind === 'rejected') log.error({ account: entry.row.label, type, operation, status: err.status, code: err.code, reason: err.message }, 'gateway refused the call without judging the card: check the account');
      throw err;
    }
  }

  const respond = (a: GatewayAnswer, entry: Live, route: Route): ProcessorResponse => ({
    approved: a.approved, responseCode: a.responseCode, processorRef: a.processorRef, replayed: false,
    ...(a.adviceCode ? { adviceCode: a.adviceCode } : {}), ...(a.challenge ? { challenge: a.challenge } : {}),
    accountId: entry.row.id, route, source: entry.row.type,
    ...(a.rawCode ? { rawCode: a.rawCode.slice(0, 64) } : {}), ...(a.rawMessage ? { rawMessage: scrubText(a.rawMessage).slice(0, 255) } : {}), ...(a.networkTransactionId ? { networkTransactionId: a.networkTransactionId } : {}),
    ...(a.cardUpdate ? { cardUpdate: a.cardUpdate } : {}),
  });

  function sandboxOf(): Processor {
    if (!deps.sandbox) throw new RescuedError('ERR_PROCESSOR_NO_ACCOUNT', 'sandbox accounts exist only in sandbox mode.');
    return deps.sandbox;
  }

  const router: Processor = {
    // The sandbox's name where it stands behind the router: the engine reads its ISO codes as before.
    name: deps.sandbox?.name ?? 'gateways',
    async route(req) {
      const t = await target(req);
      return { accountId: t.live?.row.id ?? null, route: t.route };
    },
    async authorize(req) {
      const t = await target(req);
      if (!t.live?.connector) {
        const res = await sandboxOf().authorize(req);
        return { ...res, accountId: t.live?.row.id ?? null, route: t.route };
      }
      const entry = t.live;
      const charge = await chargeOf(req, entry.connector!);
      return respond((await call(entry, 'authorize', (c) => c.authorize(charge)))!, entry, t.route);
    },
    async refund(req: RefundRequest) {
      if (!req.accountId) return sandboxOf().refund(req);
      const entry = await pinned(req.accountId);
      if (!entry.connector) return sandboxOf().refund(req);
      return respond((await call(entry, 'refund', (c) => c.refund(req)))!, entry, 'pinned');
    },
    async void(req) {
      if (!req.accountId) return sandboxOf().void(req);
      const entry = await pinned(req.accountId);
      if (!entry.connector) return sandboxOf().void(req);
      return respond((await call(entry, 'void', (c) => c.void(req)))!, entry, 'pinned');
    },
    async reconcileBy(accountId) {
      if (!accountId) return 'replay';
      const entry = await pinned(accountId);
      return !entry.connector || entry.connector.idempotent ? 'replay' : 'lookup';
    },
    async lookup(req: LookupRequest) {
      if (!req.accountId) return null;
      const entry = await pinned(req.accountId);
      if (!entry.connector) return null;
      const found = await call(entry, 'lookup', (c) => c.lookup(req));
      return found && { ...respond(found, entry, 'pinned'), replayed: true };
    },
  };
  // A charge the built-in sandbox would make is answered locally as it is without the router.
  const local = localAnswersOf(deps.sandbox);
  if (local) {
    router.local = {
      of: router,
      async authorizeFirst(req) {
        const t = await target(req);
        if (t.live?.connector) return undefined;
        const a = await local.authorizeFirst(req);
        return a && { ...a, response: { ...a.response, accountId: t.live?.row.id ?? null, route: t.route } };
      },
    };
  }
  return router;
}
