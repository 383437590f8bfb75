/** @module The console's entry: renders the app into the page. */
import { render } from 'preact'
import { App } from './app.js'

const root = document.getElementById('app')
if (root !== null) render(<App />, root)
