// One list of gateways (src/gateways.ts): the account types, the connectors found by name, the
// CLI's --type help and the API's description of gateway.type all come from it.
import { describe, expect, it } from 'vitest';
import { GATEWAYS } from '../../../src/gateways.ts';
import { ACCOUNT_TYPES } from '../../../src/processors/connector.ts';
import { ACCOUNT_KINDS } from '../../../src/processors/registry.ts';
import { OrderDetailSchema } from '../../../src/http/schemas.ts';
import { runCli } from '../../helpers/cli.ts';

describe('the list of gateways', () => {
  it('is the account types, each found by its name: the sandbox built in, every other with a connector', () => {
    expect(ACCOUNT_TYPES).toBe(GATEWAYS);
    expect(Object.keys(ACCOUNT_KINDS)).toEqual([...GATEWAYS]);
    for (const name of GATEWAYS) expect(typeof ACCOUNT_KINDS[name]?.create, name).toBe(name === 'sandbox' ? 'undefined' : 'function');
  });

  it('names every gateway in rescued processor add --help and in the API description of gateway.type', async () => {
    const help = await runCli(['processor', 'add', '--help'], {});
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--type <type> stripe, adyen, braintree, authorizenet, nmi, http (or sandbox, in sandbox mode)');
    const described = JSON.stringify(OrderDetailSchema).match(/"description":"([^"]*) or sandbox"/)?.[1];
    expect(described?.split(', ')).toEqual(GATEWAYS.filter((g) => g !== 'sandbox'));
  });
});
