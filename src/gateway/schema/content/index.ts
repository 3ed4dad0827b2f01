import './revision.js';
import './page.js';
import './document.js';
import './file.js';
import './links.js';
import './changes.js';
import './search.js';
