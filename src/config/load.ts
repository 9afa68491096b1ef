// Loads the configuration once: file (--config or RESCUED_CONFIG) → RESCUED_* overrides →
// schema defaults and validation → secrets (generated in sandbox) → frozen, typed result.
import { accessSync, constants, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { ConfigSchema, type Config } from './schema.ts';
import { ConfigError } from './error.ts';
import { applyEnv } from './env.ts';
import { checkDatabasePassword, resolveSecrets } from './secrets.ts';
import { checkGatewayUrls } from './gateway-urls.ts';

export type ResolvedConfig = Readonly<Config> & {
  readonly configFile: string | null;
  readonly dataDir: string;
};

// Compiled on the first load, not when the module is imported: `rescued --help` imports this
// module and never loads a configuration. TypeBox's own compiler, the schema's library, rather
// than Ajv: every command loads the configuration, and compiling this schema took Ajv 40–60 ms
// of each command's start (issue 28), TypeBox 3 ms. Defaults are filled by Value.Default first.
let compiled: TypeCheck<typeof ConfigSchema> | undefined;
const checker = () => (compiled ??= TypeCompiler.Compile(ConfigSchema));

function describe(err: ValueError): ConfigError {
  const key = err.path.slice(1).replaceAll('/', '.') || '(root)';
  if (err.type === ValueErrorType.ObjectAdditionalProperties) return new ConfigError(key, 'unknown key');
  if (err.type === ValueErrorType.Union || err.type === ValueErrorType.Literal) return new ConfigError(key, 'not one of the allowed values');
  return new ConfigError(key, err.message.charAt(0).toLowerCase() + err.message.slice(1));
}

function readFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('--config', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError('--config', `${path} is not a JSON object: ${(err as Error).message}`);
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export interface LoadOptions {
  configFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

export function loadConfig(opts: LoadOptions = {}): ResolvedConfig {
  const env = opts.env ?? process.env;
  const file = opts.configFile ?? env.RESCUED_CONFIG ?? null;
  const raw = file ? readFile(file) : {};
  applyEnv(raw, ConfigSchema, env);
  const filled: unknown = Value.Default(ConfigSchema, raw);
  const check = checker();
  if (!check.Check(filled)) throw describe(check.Errors(filled).First()!);
  const config = filled as Config;
  checkTls(config.http);
  checkDatabasePassword(config.database);
  checkGatewayUrls(config);
  const dataDir = resolve(config.dataDir);
  resolveSecrets(config, dataDir);
  return deepFreeze({ ...config, dataDir, configFile: file ? resolve(file) : null });
}

/** Both files or neither, and readable now: a bad path must stop the start, not the first request. */
function checkTls(http: Config['http']): void {
  if (!http.tlsCertFile && !http.tlsKeyFile) return;
  for (const key of ['tlsCertFile', 'tlsKeyFile'] as const) {
    if (!http[key]) throw new ConfigError(`http.${key}`, 'tlsCertFile and tlsKeyFile are set together');
    try {
      accessSync(http[key], constants.R_OK);
    } catch {
      throw new ConfigError(`http.${key}`, `cannot read ${http[key]}`);
    }
  }
}
