/** Stylesheets are imported for their effect: esbuild gathers them into assets/app.css. */
declare module "*.css";
