// Codes of batch intake, merged into the catalogue by src/catalogue.ts. They appear in
// acknowledgement files (`error.code`, `rejected[].errors[].code`); the HTTP status is the
// one the same problem would have on the side-port.
import type { ErrorSpec } from '../error-types.ts';

export const INTAKE_ERRORS = {
  ERR_INTAKE_SYNTAX: { status: 400, retryable: false, message: 'The file is not valid JSON in the batch layout; nothing was kept.' },
  ERR_INTAKE_HEADER_INVALID: { status: 400, retryable: false, message: 'The batch header (mid, authorizationToken, expiryDateUtc) is invalid; nothing was kept.' },
  ERR_INTAKE_UNAUTHORIZED: { status: 401, retryable: false, message: 'The mid is not this SFTP user\'s merchant, or authorizationToken is not a valid token of it; nothing was kept.' },
  ERR_INTAKE_DUPLICATE_FILE: { status: 409, retryable: false, message: 'A file with the same SHA-256 was already ingested for this merchant; nothing was kept.' },
  ERR_INTAKE_SEQUENCE: { status: 400, retryable: false, message: 'sequenceNumber is not the entry\'s position in the file (a gap or a repeat).' },
  ERR_INTAKE_DUPLICATE_ORDER: { status: 409, retryable: false, message: 'The orderId or idempotencyKey was already used, earlier in this file or by an earlier order.' },
  ERR_INTAKE_NOT_MIT: { status: 400, retryable: false, message: 'Batch entries must be merchant-initiated (isMIT: true).' },
  ERR_INTAKE_TOO_LARGE: { status: 413, retryable: false, message: 'The file unpacks to more than intake.maxUnpackedBytes, or expands more than intake.maxExpansionRatio; nothing was kept.' },
  ERR_INTAKE_ENTRY_TOO_LARGE: { status: 413, retryable: false, message: 'An entry is larger than intake.maxEntryBytes, or a key than intake.maxKeyBytes; nothing was kept.' },
  ERR_INTAKE_TOO_DEEP: { status: 400, retryable: false, message: 'An entry nests deeper than intake.maxDepth; nothing was kept.' },
  ERR_INTAKE_STORAGE_REFUSED: { status: 500, retryable: false, message: 'The database refused to store the file; nothing was kept. The operator was alerted and holds a redacted copy.' },
  ERR_INTAKE_STORAGE_UNAVAILABLE: { status: 503, retryable: true, message: 'The file could not be stored: the database stayed unavailable through intake.maxTries tries; nothing was kept. Send the file again.' },
  ERR_INTAKE_HEADER_TOO_LARGE: { status: 413, retryable: false, message: 'The header (the top-level keys beside requests) has more than intake.maxHeaderKeys keys or intake.maxHeaderBytes bytes; nothing was kept.' },
  ERR_INTAKE_TOO_MANY_ENTRIES: { status: 413, retryable: false, message: 'The file has more than intake.maxEntries entries; nothing was kept. Split it into several files.' },
  ERR_INTAKE_MEMORY_BUDGET: { status: 413, retryable: false, message: 'Reading the file would hold more memory than intake.fileMemoryBytes (or intake.memoryBytes for every file together); nothing was kept.' },
  ERR_INTAKE_CRASHED: { status: 500, retryable: false, message: 'The daemon stopped twice while ingesting this file, so it was not ingested a third time; nothing was kept. The operator was alerted and holds a redacted copy.' },
  ERR_INTAKE_FILE_TYPE: { status: 415, retryable: false, message: 'The file name does not end in .json or .json.gz, the only batch files accepted (JSON, or JSON compressed with gzip); nothing was kept. Send it again under one of those names.' },
  ERR_INTAKE_NOT_DECLINED: { status: 400, retryable: false, message: 'Only declined transactions can be rescued (isDeclined: true).' },
} as const satisfies Record<string, ErrorSpec>;
