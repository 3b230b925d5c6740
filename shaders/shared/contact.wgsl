#import records
