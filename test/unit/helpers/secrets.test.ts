// The secret check of the connector tests: a numeric secret is found as a whole number, in any
// text around it, and not inside a longer run of digits.
import { expect, it } from 'vitest';
import { namesSecret } from '../../helpers/secrets.ts';

it('finds a CVV or a card number standing alone, not inside a longer number; other secrets anywhere', () => {
  for (const text of ['{"cvv":"737"}', 'cvc=737&x=1', 'CVV 737.', '737']) expect(namesSecret(text, '737'), text).toBe(true);
  for (const text of ['REFID:737837349', 'id 17370', '7370']) expect(namesSecret(text, '737'), text).toBe(false);
  expect(namesSecret('number=4111111111111111', '4111111111111111')).toBe(true);
  expect(namesSecret('key sk_test_abc123 leaked', 'sk_test_abc123')).toBe(true);
  expect(namesSecret('nothing here', 'sk_test_abc123')).toBe(false);
});
