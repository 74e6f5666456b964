// Hand-written, hand-checked lists for the entity evaluation (issue #16).
// Company names are the companies' own short names and registered legal names
// as they appear in their public filings; every distinct pair names two
// different companies (or a company and an unrelated organization).

/** [short name, legal name]: one company. */
export const COMPANY_LEGAL_NAMES = [
  ['Apple', 'Apple Inc.'], ['Microsoft', 'Microsoft Corporation'], ['Microsoft Corp.', 'Microsoft Corporation'], ['Alphabet', 'Alphabet Inc.'],
  ['Amazon.com', 'Amazon.com, Inc.'], ['Siemens', 'Siemens AG'], ['Nestlé', 'Nestlé S.A.'], ['Nestle', 'Nestlé S.A.'],
  ['Toyota Motor', 'Toyota Motor Corporation'], ['Samsung Electronics', 'Samsung Electronics Co., Ltd.'], ['Volkswagen', 'Volkswagen AG'],
  ['BMW', 'BMW AG'], ['Bayer', 'Bayer AG'], ['BASF', 'BASF SE'], ['SAP', 'SAP SE'], ['Allianz', 'Allianz SE'], ['adidas', 'adidas AG'],
  ['Puma', 'PUMA SE'], ['Henkel', 'Henkel AG & Co. KGaA'], ['Unilever', 'Unilever PLC'], ['BP', 'BP p.l.c.'], ['HSBC Holdings', 'HSBC Holdings plc'],
  ['Barclays', 'Barclays PLC'], ['Tesco', 'Tesco PLC'], ['Vodafone Group', 'Vodafone Group Plc'], ['Rolls-Royce Holdings', 'Rolls-Royce Holdings plc'],
  ['Renault', 'Renault S.A.'], ["L'Oréal", "L'Oréal S.A."], ["L'Oreal", "L'Oréal S.A."], ['Danone', 'Danone S.A.'], ['Airbus', 'Airbus SE'],
  ['Heineken', 'Heineken N.V.'], ['ING Groep', 'ING Groep N.V.'], ['Nokia', 'Nokia Oyj'], ['Spotify Technology', 'Spotify Technology S.A.'],
  ['Sony Group', 'Sony Group Corporation'], ['Honda Motor', 'Honda Motor Co., Ltd.'], ['Nintendo', 'Nintendo Co., Ltd.'], ['Hitachi', 'Hitachi, Ltd.'],
  ['Panasonic Holdings', 'Panasonic Holdings Corporation'], ['Tata Consultancy Services', 'Tata Consultancy Services Limited'],
  ['Infosys', 'Infosys Limited'], ['Reliance Industries', 'Reliance Industries Limited'], ['Alibaba Group Holding', 'Alibaba Group Holding Limited'],
  ['Tencent Holdings', 'Tencent Holdings Ltd.'], ['Banco Santander', 'Banco Santander, S.A.'], ['Telefónica', 'Telefónica, S.A.'],
  ['Telefonica', 'Telefónica, S.A.'], ['Iberdrola', 'Iberdrola, S.A.'], ['Enel', 'Enel S.p.A.'], ['Eni', 'Eni S.p.A.'], ['Ferrari', 'Ferrari N.V.'],
  ['Stellantis', 'Stellantis N.V.'], ['ASML Holding', 'ASML Holding N.V.'], ['Novartis', 'Novartis AG'], ['Roche Holding', 'Roche Holding AG'],
  ['UBS Group', 'UBS Group AG'], ['Zurich Insurance Group', 'Zurich Insurance Group AG'], ['ABB', 'ABB Ltd'], ['Novo Nordisk', 'Novo Nordisk A/S'],
  ['Carlsberg', 'Carlsberg A/S'], ['Equinor', 'Equinor ASA'], ['Ørsted', 'Ørsted A/S'], ['Orsted', 'Ørsted A/S'], ['Walmart', 'Walmart Inc.'],
  ['Exxon Mobil', 'Exxon Mobil Corporation'], ['Johnson & Johnson', 'Johnson and Johnson'], ['Procter & Gamble', 'The Procter & Gamble Company'],
  ['Coca-Cola', 'The Coca-Cola Company'], ['Walt Disney', 'The Walt Disney Company'], ['Home Depot', 'The Home Depot, Inc.'],
  ['Goldman Sachs Group', 'The Goldman Sachs Group, Inc.'], ['Boeing', 'The Boeing Company'], ['PepsiCo', 'PepsiCo, Inc.'],
  ['Intel', 'Intel Corporation'], ['Cisco Systems', 'Cisco Systems, Inc.'], ['Oracle', 'Oracle Corporation'], ['Meta Platforms', 'Meta Platforms, Inc.'],
  ['NVIDIA', 'NVIDIA Corporation'], ['Nvidia Corp', 'NVIDIA Corporation'], ['Tesla', 'Tesla, Inc.'], ['Netflix', 'Netflix, Inc.'], ['Adobe', 'Adobe Inc.'],
  ['Salesforce', 'Salesforce, Inc.'], ['Pfizer', 'Pfizer Inc.'], ['Merck & Co.', 'Merck & Co., Inc.'], ['Chevron', 'Chevron Corporation'],
  ['General Electric', 'General Electric Company'], ['Ford Motor', 'Ford Motor Company'], ['General Motors', 'General Motors Company'],
  ['3M', '3M Company'], ['Caterpillar', 'Caterpillar Inc.'], ["McDonald's", "McDonald's Corporation"], ['Starbucks', 'Starbucks Corporation'],
  ['Nike', 'Nike, Inc.'], ['Visa', 'Visa Inc.'], ['Mastercard', 'Mastercard Incorporated'], ['JPMorgan Chase', 'JPMorgan Chase & Co.'],
  ['Berkshire Hathaway', 'Berkshire Hathaway Inc.'], ['AT&T', 'AT&T Inc.'], ['Verizon Communications', 'Verizon Communications Inc.'],
  ['Comcast', 'Comcast Corporation'], ['Qualcomm', 'Qualcomm Incorporated'], ['Texas Instruments', 'Texas Instruments Incorporated'],
  ['Lockheed Martin', 'Lockheed Martin Corporation'], ['Société Générale', 'Société Générale S.A.'], ['Societe Generale', 'Société Générale S.A.'],
  ['Bosch', 'Bosch GmbH'], ['Continental', 'Continental AG'], ['Deutsche Bank', 'Deutsche Bank AG'],
  ['Deutsche Telekom', 'Deutsche Telekom AG'], ['Lufthansa', 'Lufthansa AG'], ['Aldi Süd', 'ALDI SÜD GmbH'], ['Aldi Sud', 'ALDI SÜD GmbH'],
];

/** [acronym, full name]: one company, but an acronym only asks (a person confirms). */
export const COMPANY_ACRONYMS = [
  ['IBM', 'International Business Machines Corporation'], ['BMW', 'Bayerische Motoren Werke AG'], ['GE', 'General Electric Company'],
  ['GM', 'General Motors Company'], ['TCS', 'Tata Consultancy Services Limited'],
];

/** [name, name]: two different organizations whose names look alike. */
export const DISTINCT_COMPANIES = [
  ['Apple Inc.', 'Apple Bank'], ['Apple Inc.', 'Apple Hospitality REIT'], ['Delta Air Lines', 'Delta Dental'], ['Delta Air Lines', 'Delta Electronics'],
  ['American Airlines', 'American Express'], ['American Express', 'American Eagle Outfitters'], ['General Electric', 'General Motors'],
  ['General Electric', 'General Mills'], ['General Motors', 'General Dynamics'], ['Ford Motor Company', 'Ford Foundation'],
  ['Oracle Corporation', 'Oracle Financial Services Software'], ['Continental AG', 'Continental Airlines'], ['Alphabet Inc.', 'Alpha Bank'],
  ['Metro AG', 'Metro Bank'], ['Sony', 'Sonos'], ['Nokia', 'Nikon'], ['Samsung Electronics', 'Samsung Heavy Industries'],
  ['Samsung Electronics', 'Samsung Life Insurance'], ['Mitsubishi Corporation', 'Mitsubishi UFJ Financial Group'], ['Mitsubishi Motors', 'Mitsubishi Electric'],
  ['Hyundai Motor', 'Hyundai Heavy Industries'], ['Tata Motors', 'Tata Steel'], ['Tata Steel', 'Tata Consultancy Services'], ['Target Corporation', 'Targa Resources'],
  ['Visa Inc.', 'Vista Equity Partners'], ['Intel', 'Intelsat'], ['Intel', 'Intuit'], ['Nike', 'Nikon'], ['Boeing', 'Boeing Employees Credit Union'],
  ['Allianz', 'Alliance Data Systems'], ['Alliant Energy', 'Alliance Boots'], ['Morgan Stanley', 'JPMorgan Chase'], ['Goldman Sachs', 'Goldman Sachs BDC'],
  ['Discover Financial', 'Discovery Inc.'], ['Dominion Energy', "Domino's Pizza"], ['Prudential Financial', 'Prudential plc'], ['BP', 'BNP Paribas'],
  ['TotalEnergies', 'Total System Services'], ['Vale', 'Valeo'], ['Valero Energy', 'Valeo'], ['Bayer AG', 'Bayer 04 Leverkusen'],
  ['Siemens', 'Siemens Energy'], ['Siemens', 'Siemens Healthineers'], ['Volkswagen', 'Volkswagen Financial Services'], ['Dell Technologies', 'Dell Medical School'],
  ['Shell plc', 'Shell Federal Credit Union'], ['Orange S.A.', 'Orange County Bank'], ['Amazon.com, Inc.', 'Amazon Conservation Association'],
  ['Acme', 'Acme Bank'], ['Unilever', 'Univar Solutions'], ['Heineken', 'Heinz'], ['Nestlé', 'Nestor Partners'], ['Pfizer', 'Pfister Hydraulics'],
  ['Oracle', 'Oracle Lighting'], ['Canon', 'Canton Bank'], ['Marriott International', 'Marriott School of Business'], ['Hilton Worldwide', 'Hilton Grand Vacations'],
  ['Caterpillar', 'Caterpillar Foundation'], ['Ford Motor', 'Ford Credit'], ['Coca-Cola', 'Coca-Cola Europacific Partners'],
];

/** [with "the", without]: one country. */
export const THE_PREFIXED = [
  ['The Bahamas', 'Bahamas'], ['The Gambia', 'Gambia'], ['the Netherlands', 'Netherlands'], ['The Philippines', 'Philippines'],
  ['the United Kingdom', 'United Kingdom'], ['The Czech Republic', 'Czech Republic'], ['the Maldives', 'Maldives'], ['The Comoros', 'Comoros'],
];

/** [abbreviation, full name]: one country; an abbreviation only asks. */
export const COUNTRY_ACRONYMS = [
  ['USA', 'United States of America'], ['UK', 'United Kingdom'], ['UAE', 'United Arab Emirates'], ['DRC', 'Democratic Republic of the Congo'],
  ['CAR', 'Central African Republic'], ['U.S.A.', 'United States of America'], ['PNG', 'Papua New Guinea'], ['KSA', 'Kingdom of Saudi Arabia'],
];
