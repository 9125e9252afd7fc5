// This package's folder, the same from its sources (src/) and its build (dist/): where its bin/, data/ and dist/ are.
import { fileURLToPath } from 'node:url';

export const packageRoot = fileURLToPath(new URL('..', import.meta.url));
