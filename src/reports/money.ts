// Minor units as the decimal a person reads, with the currency's ISO 4217 exponent (JPY 0,
// BHD 3): the console, the CLI text and the CSV show the same string.
import currencyCodes from 'currency-codes';

export function majorUnits(minor: number, currency: string): string {
  const digits = currencyCodes.code(currency.toUpperCase())?.digits ?? 2;
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  const whole = digits === 0 ? text : text.slice(0, -digits);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${digits === 0 ? '' : `.${text.slice(-digits)}`}`;
}

/** Major units without grouping, for CSV cells a spreadsheet reads as a number. */
export function plainMajorUnits(minor: number, currency: string): string {
  return majorUnits(minor, currency).replaceAll(',', '');
}
