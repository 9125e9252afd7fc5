// What GitHub's license detection (licensee) reports for a repository's SPDX id: the license's key
// and name, or the pseudo-license "Other" for a file it could not match. Both API layers render it.

export interface DetectedLicense {
  /** Lower-cased SPDX id, or 'other'. */
  key: string;
  name: string;
  spdxId: string;
  /** GitHub's `pseudoLicense`: true for "Other" (spdxId NOASSERTION). */
  pseudo: boolean;
}

// Names licensee reports for SPDX ids the worlds use; anything else keeps its id as name.
const licenseNames: Partial<Record<string, string>> = {
  MIT: 'MIT License',
  'Apache-2.0': 'Apache License 2.0',
  'GPL-2.0': 'GNU General Public License v2.0',
  'GPL-3.0': 'GNU General Public License v3.0',
  'LGPL-2.1': 'GNU Lesser General Public License v2.1',
  'LGPL-3.0': 'GNU Lesser General Public License v3.0',
  'AGPL-3.0': 'GNU Affero General Public License v3.0',
  'BSD-2-Clause': 'BSD 2-Clause "Simplified" License',
  'BSD-3-Clause': 'BSD 3-Clause "New" or "Revised" License',
  'MPL-2.0': 'Mozilla Public License 2.0',
  ISC: 'ISC License',
  Unlicense: 'The Unlicense',
  'CC0-1.0': 'Creative Commons Zero v1.0 Universal',
  'EPL-2.0': 'Eclipse Public License 2.0',
  'BSL-1.0': 'Boost Software License 1.0',
};

export function detectedLicense(spdxId: string): DetectedLicense {
  if (spdxId === 'NOASSERTION') return { key: 'other', name: 'Other', spdxId, pseudo: true };
  return { key: spdxId.toLowerCase(), name: licenseNames[spdxId] ?? spdxId, spdxId, pseudo: false };
}
