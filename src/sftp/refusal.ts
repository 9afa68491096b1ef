// A request the SFTP server refuses on purpose (as opposed to a file-system error): it is
// answered with its status and written to the audit log with its reason.

export type RefusalKind = 'denied' | 'no_such_file' | 'failure' | 'unsupported' | 'bad_path';

export class Refusal extends Error {
  readonly kind: RefusalKind;
  /** Audited as a refusal; `no_such_file` is an ordinary answer (put's STAT expects it). */
  readonly audited: boolean;

  constructor(kind: RefusalKind, reason: string) {
    super(reason);
    this.name = 'Refusal';
    this.kind = kind;
    this.audited = kind !== 'no_such_file';
  }
}
