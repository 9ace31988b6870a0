/** The console validates a rotation as the API does. */
export { DEFAULT_OVERLAP_HOURS, validateRotate } from '../domain/rotateInput.js';
