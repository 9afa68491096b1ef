// ANSI INCITS 38:2009 (formerly FIPS 5-2), the code set the spec names for
// billingInformation.state and shippingInformation.state: each state, the District of
// Columbia and the outlying areas have a two-letter and a two-digit code; the individual
// minor outlying islands have a two-digit code only. Source: U.S. Census Bureau, "ANSI
// Codes for States" (the published INCITS 38:2009 table). No maintained npm package carries
// the numeric codes, so the table is written out here once and tested.
const ENTRIES: ReadonlyArray<readonly [alpha: string | null, numeric: string]> = [
  ['AL', '01'], ['AK', '02'], ['AZ', '04'], ['AR', '05'], ['CA', '06'], ['CO', '08'],
  ['CT', '09'], ['DE', '10'], ['DC', '11'], ['FL', '12'], ['GA', '13'], ['HI', '15'],
  ['ID', '16'], ['IL', '17'], ['IN', '18'], ['IA', '19'], ['KS', '20'], ['KY', '21'],
  ['LA', '22'], ['ME', '23'], ['MD', '24'], ['MA', '25'], ['MI', '26'], ['MN', '27'],
  ['MS', '28'], ['MO', '29'], ['MT', '30'], ['NE', '31'], ['NV', '32'], ['NH', '33'],
  ['NJ', '34'], ['NM', '35'], ['NY', '36'], ['NC', '37'], ['ND', '38'], ['OH', '39'],
  ['OK', '40'], ['OR', '41'], ['PA', '42'], ['RI', '44'], ['SC', '45'], ['SD', '46'],
  ['TN', '47'], ['TX', '48'], ['UT', '49'], ['VT', '50'], ['VA', '51'], ['WA', '53'],
  ['WV', '54'], ['WI', '55'], ['WY', '56'],
  // Outlying areas and freely associated states.
  ['AS', '60'], ['FM', '64'], ['GU', '66'], ['MH', '68'], ['MP', '69'], ['PW', '70'],
  ['PR', '72'], ['UM', '74'], ['VI', '78'],
  // Minor outlying islands: Johnston Atoll, Midway, Navassa, Wake, Baker, Howland, Jarvis,
  // Kingman Reef, Palmyra Atoll.
  [null, '67'], [null, '71'], [null, '76'], [null, '79'], [null, '81'], [null, '84'],
  [null, '86'], [null, '89'], [null, '95'],
];

/** Every two-letter and two-digit code of ANSI INCITS 38:2009. */
export const US_STATE_CODES: ReadonlySet<string> = new Set(
  ENTRIES.flatMap(([alpha, numeric]) => (alpha === null ? [numeric] : [alpha, numeric])),
);
