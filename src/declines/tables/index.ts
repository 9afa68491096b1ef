// Every gateway's decline table, one line each: a table is found by its name and its aliases
// (../sources.ts). docs/development.md, "Adding a decline table".
export { table as stripe } from './stripe.ts';
export { table as braintree } from './braintree.ts';
export { table as adyen } from './adyen.ts';
export { table as nmi } from './nmi.ts';
export { table as authorizenet } from './authorizenet.ts';
export { table as checkoutcom } from './checkoutcom.ts';
