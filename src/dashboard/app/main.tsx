// The formsvc dashboard: a single-page app over formsvc's own JSON API, served at /dashboard.
// First: the chart library reads the browser's language as it loads (locale.ts).
import "./locale";
import { render } from "preact";
import "uplot/dist/uPlot.min.css";
import { App } from "./app";
import "./styles.css";

render(<App />, document.getElementById("app")!);
