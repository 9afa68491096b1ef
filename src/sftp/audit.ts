// The SFTP audit trail: one line per login, upload, download and refusal, through the pino
// child `component: 'sftp-audit'`. Every line carries the same keys (null when they do not
// apply) so operators can filter journald output by key without guessing.
import type { Logger } from '../log.ts';

export type AuditEvent =
  | 'connection_refused'
  | 'login'
  | 'login_refused'
  | 'logout'
  | 'session_refused'
  | 'refused'
  | 'upload'
  | 'upload_failed'
  | 'download'
  | 'remove'
  | 'rename'
  | 'mkdir'
  | 'rmdir'
  | 'handed_over'
  | 'file_ignored';

export interface AuditFields {
  username?: string | null | undefined;
  mid?: string | null | undefined;
  remoteAddress?: string | null | undefined;
  path?: string | null | undefined;
  bytes?: number | null | undefined;
  reason?: string | null | undefined;
  [extra: string]: unknown;
}

export type Audit = (event: AuditEvent, fields?: AuditFields) => void;

const WARN_EVENTS = new Set<AuditEvent>(['connection_refused', 'login_refused', 'session_refused', 'refused', 'upload_failed']);

export function createAudit(log: Logger): Audit {
  const audit = log.child({ component: 'sftp-audit' });
  return (event, fields = {}) => {
    const { username = null, mid = null, remoteAddress = null, path = null, bytes = null, reason = null, ...extra } = fields;
    const line = { ...extra, event, username, mid, remoteAddress, path, bytes, reason };
    if (WARN_EVENTS.has(event)) audit.warn(line, `sftp ${event}`);
    else audit.info(line, `sftp ${event}`);
  };
}
