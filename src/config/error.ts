/** A configuration problem: names the key, and makes the process exit with EX_CONFIG (78). */
export class ConfigError extends Error {
  readonly key: string;
  constructor(key: string, message: string) {
    super(`${key}: ${message}`);
    this.name = 'ConfigError';
    this.key = key;
  }
}

/** sysexits.h EX_CONFIG: systemd's RestartPreventExitStatus keeps a bad config from flapping. */
export const EXIT_CONFIG = 78;
