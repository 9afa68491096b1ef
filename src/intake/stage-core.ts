// What the intake stage takes of the core the daemon opened: src/core.ts builds it a floor
// above the stages (.config/layers.mjs), so the stage names the parts it uses here.
import type { ResolvedConfig } from '../config/index.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { KeyRing } from '../vault/cipher.ts';

export interface IntakeCore {
  config: ResolvedConfig;
  log: Logger;
  database: Database;
  tokens: TokenService;
  keyRing: KeyRing;
}
