/** @module The console's entry: takes a link's token from the address, then renders the app into the page. */
import { render } from 'preact'
import { App } from './app.js'
import { adoptLinkToken } from './link-token.js'

adoptLinkToken()
const root = document.getElementById('app')
if (root !== null) render(<App />, root)
