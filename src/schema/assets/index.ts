import './asset.js';
import './search.js';
