// Entry point: the stylesheet and the app shell (which imports every page).
import './styles.css';
import './app.ts';
