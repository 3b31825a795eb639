// The formsvc dashboard: a single-page app over formsvc's own JSON API, served at /dashboard.
import { render } from "preact";
import "uplot/dist/uPlot.min.css";
import { App } from "./app";
import "./styles.css";

render(<App />, document.getElementById("app")!);
