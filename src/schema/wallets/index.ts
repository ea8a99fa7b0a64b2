import './position.js';
import './wallet.js';
