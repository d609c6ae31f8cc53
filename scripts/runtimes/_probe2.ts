import * as u from 'undici'
const p: any = new u.Pool('http://127.0.0.1:1')
console.log(p, Object.getOwnPropertyNames(Object.getPrototypeOf(p)), typeof p.dispatch, typeof p.close)
console.log(String(u.request).slice(0,300))
console.log(String(u.Pool).slice(0,300))
try { p.dispatch({method:'GET', path:'/'}, {}) } catch (e) { console.log('dispatch threw', e) }
