/** The version of this toolmgr build; kept equal to packages/toolmgr/package.json by a test. */
export const TOOLMGR_VERSION = "0.1.0";
