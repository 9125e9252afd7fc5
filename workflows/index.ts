// Every workflow the abp worker registers. The worker bundles this file for Temporal's sandbox.
export { wiringCheck } from './wiring.js';
export { rotateRegistry } from './rotation.js';
