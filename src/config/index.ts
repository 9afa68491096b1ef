export { loadConfig, type ResolvedConfig, type LoadOptions } from './load.ts';
export { ConfigError, EXIT_CONFIG } from './error.ts';
export { ConfigSchema, type Config } from './schema.ts';
export { envName, configKeys } from './env.ts';
export { archiveDir, quarantineDir } from './paths.ts';
