// The layers of src/ (DESIGN.md §6), bottom to top, as dependency-cruiser rules: a room imports
// only rooms on floors below its own. `npm run lint` runs them (`lint:layers`), and
// test/unit/lint/layers.test.ts shows them failing on an upward import. docs/development.md,
// "Layers", says why each room sits where it does.
//
// A room is a folder under src/ or a single file directly in it. Type-only imports count: a
// type named from a floor above is the same dependency as a value, only erased at run time (a
// stage naming the wiring file's type made the import cycles lint:cycles now refuses).
// Dynamic imports count too.

/**
 * Bottom to top. On the base floor every room may import every other (they import nothing
 * else). A file inside a folder may be placed apart from its folder: vault/pan.ts, plain card
 * number functions that import nothing, is on the base floor with the logger and the card
 * number detector that use it.
 */
export const FLOORS = [
  ['config/', 'clock.ts', 'calendar.ts', 'errors.ts', 'error-types.ts', 'gateways.ts', 'vault/pan.ts', 'card-numbers.ts', 'scrub.ts', 'sqlstate.ts', 'log.ts', 'log-format.ts', 'metrics.ts', 'failure-window.ts', 'atomic-file.ts', 'group.ts', 'schedule.ts'],
  ['db/'],
  ['domain/', 'declines/', 'vault/', 'auth/'],
  ['intake/', 'sftp/', 'webhooks/', 'outbound/'],
  ['processors/'],
  ['engine/'],
  ['orders/', 'reports/', 'merchants/', 'retention/'],
  ['core.ts'],
  ['http/', 'admin/', 'cli/'],
  ['daemon.ts', 'catalogue.ts'],
  ['main.ts'],
];

/** The imports allowed between two rooms of one floor above the base; every other is refused. */
export const SAME_FLOOR = [
  // Batch intake takes over the files the SFTP server finished receiving: the handover's type.
  { from: 'intake/', to: 'sftp/handover.ts' },
  // The CLI forwards a command to a running daemon over its socket.
  { from: 'cli/', to: 'admin/' },
  // The error catalogue is assembled from every stage where the stages are wired.
  { from: 'daemon.ts', to: 'catalogue.ts' },
];

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Files placed apart from their folder (see FLOORS). */
const apart = FLOORS.flat().filter((room) => !room.endsWith('/') && room.includes('/'));
/** A room as a path pattern: a folder and everything in it but the files placed apart, or exactly one file. */
function pattern(room) {
  if (!room.endsWith('/')) return `^src/${esc(room)}$`;
  const out = apart.filter((file) => file.startsWith(room)).map((file) => esc(file.slice(room.length)));
  return out.length ? `^src/${esc(room)}(?!(${out.join('|')})$)` : `^src/${esc(room)}`;
}
const any = (rooms) => rooms.map(pattern).join('|');

const upward = FLOORS.slice(0, -1).map((floor, i) => ({
  name: `upward-from-floor-${i}`,
  comment: `${floor.join(', ')} may import only floors below: not ${FLOORS.slice(i + 1).flat().join(', ')}`,
  severity: 'error',
  from: { path: any(floor) },
  to: { path: any(FLOORS.slice(i + 1).flat()) },
}));

const sameFloor = FLOORS.slice(1).flatMap((floor) =>
  floor
    .filter(() => floor.length > 1)
    .map((room) => {
      const others = floor.filter((r) => r !== room);
      const allowed = SAME_FLOOR.filter((a) => a.from === room).map((a) => pattern(a.to));
      return {
        name: `same-floor-from-${room.replace(/\W/g, '-')}`,
        comment: `${room} shares a floor with ${others.join(', ')}: it may not import them${allowed.length ? ` (except ${SAME_FLOOR.filter((a) => a.from === room).map((a) => a.to).join(', ')})` : ''}`,
        severity: 'error',
        from: { path: pattern(room) },
        to: { path: any(others), ...(allowed.length ? { pathNot: allowed.join('|') } : {}) },
      };
    }),
);

/** Every file under src/ must be on a floor, so a new room is placed on purpose. */
const placed = {
  name: 'room-without-a-floor',
  comment: 'a new folder or file directly under src/ must be added to FLOORS in .config/layers.mjs',
  severity: 'error',
  from: { path: '^src/', pathNot: any(FLOORS.flat()) },
  to: {},
};

export default {
  forbidden: [...upward, ...sameFloor, placed],
  options: {
    // Type-only imports are dependencies too (see the top of this file).
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/db/migrations/' },
  },
};
