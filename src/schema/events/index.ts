import './event.js';
import './kinds.js';
