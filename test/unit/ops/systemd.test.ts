// `systemd-analyze verify` on the shipped unit. The unit names /opt/rescued, which does not
// exist here, so the check runs on a copy whose paths point at a stand-in tree. .ci/run
// installs systemd-analyze and sets REQUIRE_SYSTEMD_ANALYZE, so there the test cannot skip.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const UNIT = join(import.meta.dirname, '../../../systemd/rescued.service');
const available = spawnSync('systemd-analyze', ['--version']).status === 0;
if (!available && process.env.REQUIRE_SYSTEMD_ANALYZE) throw new Error('systemd-analyze is required (REQUIRE_SYSTEMD_ANALYZE is set) but not installed');

describe.skipIf(!available)('systemd unit', () => {
  it('passes systemd-analyze verify', () => {
    const root = mkdtempSync(join(tmpdir(), 'rescued-unit-'));
    const node = join(root, 'opt/rescued/node_modules/node/bin/node');
    mkdirSync(join(root, 'opt/rescued/node_modules/node/bin'), { recursive: true });
    writeFileSync(node, '#!/bin/sh\n');
    chmodSync(node, 0o755);
    const unit = join(root, 'rescued.service');
    writeFileSync(unit, readFileSync(UNIT, 'utf8').replaceAll('/opt/rescued', join(root, 'opt/rescued')));
    const res = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it('has the hardening the operators rely on', () => {
    const text = readFileSync(UNIT, 'utf8');
    for (const line of ['Restart=on-failure', 'NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes', 'ReadWritePaths=/var/lib/rescued', 'User=rescued', 'RestartPreventExitStatus=78']) {
      expect(text).toContain(line);
    }
    // Stop timeout above the default drain time (shutdown.drainTimeoutMs = 10 s).
    expect(Number(/TimeoutStopSec=(\d+)/.exec(text)![1])).toBeGreaterThan(10);
  });
});
