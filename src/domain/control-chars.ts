// Control characters have no place in a payment request's text: PostgreSQL refuses a NUL in
// text outright (22P05, which used to fail a whole batch file), and the others (bell, escape,
// backspace) only hide what a value says in logs and acks. Tab, newline and carriage return
// stay allowed: free text carries them.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
// eslint-disable-next-line no-control-regex -- as above, every one of them, for display
const ANY_CONTROL = /[\u0000-\u001F\u007F]/g;

/** The text with every control character shown as `?` (for acks and messages). */
export function showControls(text: string): string {
  return text.replace(ANY_CONTROL, '?');
}

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** The dotted path of the first key or string value holding a control character, if any. */
export function controlCharacterField(value: unknown): string | undefined {
  const stack: Array<{ v: unknown; path: string }> = [{ v: value, path: '' }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (hasControlCharacter(v)) return path || '(entry)';
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        const at = Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
        if (hasControlCharacter(k)) return showControls(at);
        stack.push({ v: child, path: at });
      }
    }
  }
  return undefined;
}
