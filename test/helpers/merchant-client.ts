// A merchant's API over real HTTP, as its servers call it: the credentials `rescued merchant
// add --json` printed, a bearer token fetched on first use, card tokens from /v1/tokenize.
import { asMerchant } from './api.ts';

type Json = Record<string, unknown>;

/** The merchant's API over HTTP, as its servers call it. */
export function merchantClient(base: string, creds: Record<string, string>) {
  let auth: Record<string, string> | undefined;
  const own = { mid: creds.mid!, siteId: creds.siteId! };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Json };
  };
  return {
    async call(path: string, body: unknown) {
      auth ??= { authorization: `Bearer ${(await post('/oauth2/token', { appKey: creds.clientId, appSecret: creds.clientSecret })).json.access_token as string}` };
      return post(path, asMerchant(body, own), auth);
    },
    async tokenize(number: string): Promise<string> {
      const card = { first_name: 'Jane', last_name: 'Doe', number, verification_value: '123', month: '12', year: '2035' };
      const tok = await post(`/v1/tokenize?mid=${creds.mid}&environment=${encodeURIComponent(creds.tokenizationKey!)}`, { payment_method: { credit_card: card } });
      return (tok.json.transaction as { payment_method: { token: string } }).payment_method.token;
    },
  };
}
