// Every workflow the abp worker registers. The worker bundles this file for Temporal's sandbox.
export { wiringCheck } from './wiring.js';
export { rotateRegistry } from './rotation.js';
export { scheduledRotation } from './scheduled-rotation.js';
export { recordOptOut } from './opt-out.js';
export { drawTasks } from './draw.js';
export { taskLifecycle } from './task.js';
export { freezeMergedTask } from './freeze.js';
export { pollPullRequests } from './pr-poller.js';
export { gradeRun } from './grade-run.js';
