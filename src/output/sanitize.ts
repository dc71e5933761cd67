// The sanitiser is pure text work and lives in src/text; output code keeps importing it from here.
export { sanitize } from '../text/sanitize.js';
